#!/usr/bin/env node
'use strict';
// Entry point of the `tea` command (CommonJS: bin/package.json). `--version` is
// answered here without loading the CLI; everything else runs the bundled CLI,
// dist/tea.cjs, from a V8 code cache (code-cache.js).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${version()}\n`);
} else {
  // Each kind of run compiles its own part of the bundle, so each has a code cache of its
  // own: a subcommand (by name; one missing here shares `command`), an interactive run, or
  // a prompt run.
  const kind = kindOf(args);
  // `tea` alone in a terminal: the full-screen UI's first frame now, before the 2 MB bundle loads.
  if (kind === 'interactive') require('../dist/first-frame.cjs').drawFirstFrame(version());
  const { main } = require('./code-cache.js').load(`${__dirname}/../dist/tea.cjs`, kind);
  main(args).then((code) => {
    process.exitCode = code;
  });
}

function kindOf(args) {
  const commands = [
    'sessions',
    'db',
    'memory',
    'tools',
    'config',
    'trust',
    'mcp',
    'serve',
    'acp',
    'workflow',
    'skills',
    'evolve',
    'trace',
    'help',
  ];
  if (commands.includes(args[0])) return args[0];
  // `tea` alone: the terminal UI (or the plain prompt), a part of the bundle -p never runs.
  if (args.length === 0) return 'interactive';
  return args.length === 0 || args.includes('-p') || args.includes('--print') ? 'prompt' : 'command';
}

function version() {
  const { readFileSync } = require('node:fs');
  return JSON.parse(readFileSync(`${__dirname}/../package.json`, 'utf8')).version;
}

#!/usr/bin/env node
'use strict';
// Entry point of the `tea` command (CommonJS: bin/package.json). `--version` is
// answered here without loading the CLI; everything else runs the bundled CLI,
// dist/tea.cjs, from a V8 code cache (code-cache.js).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync } = require('node:fs');
  const pkg = JSON.parse(readFileSync(`${__dirname}/../package.json`, 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  // A prompt run (tea -p, the interactive tea) compiles other code than a subcommand: a cache each.
  const prompt = args.length === 0 || args.includes('-p') || args.includes('--print');
  const { main } = require('./code-cache.js').load(
    `${__dirname}/../dist/tea.cjs`,
    prompt ? 'prompt' : 'command',
  );
  main(args).then((code) => {
    process.exitCode = code;
  });
}

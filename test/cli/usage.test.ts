/**
 * Mistakes on the command line: each is one line on stderr, `tea: … (see tea … --help)`,
 * exit code 2, before any model is asked; and one flag name for the permission mode.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli();
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work, input: '' });

/** One usage line naming `what`, pointing at the help of `command`, exit 2, nothing on stdout. */
async function usageError(args: string[], what: RegExp, command = 'tea'): Promise<string> {
  const r = await tea(args);
  const label = args.join(' ');
  expect(r.code, label).toBe(2);
  expect(r.stdout, label).toBe('');
  expect(r.stderr, label).toMatch(/^tea: [^\n]+ \(see tea[a-z ]* --help\)\n$/);
  expect(r.stderr, label).toContain(`(see ${command} --help)`);
  expect(r.stderr, label).toMatch(what);
  return r.stderr;
}

describe('usage errors', () => {
  it('--cwd must be an existing directory, for every command that takes it', async () => {
    const missing = path.join(t.ctx.work, 'no-such-dir');
    await usageError(['-p', 'hi', '--cwd', missing], /--cwd .*no-such-dir: no such directory/);
    await usageError(['serve', '--cwd', missing], /--cwd .*: no such directory/, 'tea serve');
    await usageError(['acp', '--cwd', missing], /--cwd .*: no such directory/, 'tea acp');
    await usageError(['config', '--cwd', missing], /--cwd .*: no such directory/, 'tea config');
    const file = path.join(t.ctx.work, 'a-file');
    writeFileSync(file, 'x');
    await usageError(['-p', 'hi', '--cwd', file], /--cwd .*a-file: not a directory/);
    await usageError(['-p', 'hi', '--add-dir', missing], /--add-dir .*: no such directory/);
    expect(t.server.requests).toHaveLength(0);
  });

  it('--continue and --resume together are refused', async () => {
    await usageError(
      ['-p', 'hi', '--continue', '--resume', 'abcd1234'],
      /'-c, --continue' cannot be used with option '-r, --resume <id>'/,
    );
    expect(t.server.requests).toHaveLength(0);
  });

  it('--allow must name a real tool, and suggests the closest', async () => {
    await usageError(
      ['-p', 'hi', '--allow', 'edit_flie'],
      /--allow edit_flie: unknown tool "edit_flie"; did you mean edit_file\?/,
    );
    await usageError(
      ['-p', 'hi', '--allow', 'file_read:*.md'],
      /unknown tool "file_read"; did you mean read_file\?/,
    );
    const far = await usageError(
      ['-p', 'hi', '--allow', 'nosuchtool'],
      /unknown tool "nosuchtool"; the closest are \S+/,
    );
    expect(far).toContain('tea tools list shows every tool');
    await usageError(['-p', 'hi', '--allow', 'gti_*'], /unknown tool "gti_\*"/);
    await usageError(
      ['-p', 'hi', '--allow', 'mcp__nope__x'],
      /no MCP server named "nope" \(none is configured\)/,
    );
    await usageError(['mcp', 'serve', '--allow', 'bsh'], /did you mean bash\?/, 'tea mcp serve');
    expect(t.server.requests).toHaveLength(0);

    // Real names, globs, the network permission and the memory tool are fine.
    t.server.script(reply().text('ok'));
    const ok = await tea(['-p', 'hi', '--allow', 'git_*', '--allow', 'network:npm *', '--allow', 'memory']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
  });

  it('--category must be a real category, with the closest suggested', async () => {
    await usageError(
      ['tools', 'list', '--category', 'gti'],
      /--category gti: unknown category; did you mean git\?/,
      'tea tools list',
    );
    await usageError(
      ['memory', 'add', '-c', 'prefrence', 'likes tea'],
      /--category prefrence: unknown category; did you mean preference\?/,
      'tea memory add',
    );
  });

  it('commander’s own errors read the same, naming the subcommand’s help', async () => {
    await usageError(
      ['--sandbox', 'bogus'],
      /option '--sandbox <mode>' argument 'bogus' is invalid: expected auto, on or off/,
    );
    await usageError(['serve', '--port', 'x'], /argument 'x' is invalid: expected a port/, 'tea serve');
    await usageError(['memory', 'add'], /missing required argument 'text'/, 'tea memory add');
    await usageError(['sessions', 'list', '--bogus'], /unknown option '--bogus'/, 'tea sessions list');
    await usageError(['--yolow'], /unknown option '--yolow' \(did you mean --yolo\?\)/);
  });
});

describe('usage errors found by the commands themselves', () => {
  it('read the same as the others', async () => {
    await usageError(['-p'], /no prompt: pass one/);
    await usageError(
      ['tools', 'show', 'edit_fil'],
      /unknown tool "edit_fil"; did you mean edit_file\?/,
      'tea tools show',
    );
    await usageError(['memory', 'search', ' '], /give something to search for/, 'tea memory search');
    await usageError(['memory', 'history', 'abc'], /not a memory id: "abc"/, 'tea memory history');
    await usageError(['trust', '--list', '--revoke'], /use --list or --revoke, not both/, 'tea trust');
    await usageError(
      ['serve', '--cors', '*'],
      /--cors \* would let every web site drive this server/,
      'tea serve',
    );
  });
});

describe('the permission mode flag', () => {
  it('is --permission-mode for tea -p, acp, serve and mcp serve', async () => {
    for (const [args, command] of [
      [['-p', 'hi'], 'tea'],
      [['acp'], 'tea acp'],
      [['serve'], 'tea serve'],
      [['mcp', 'serve'], 'tea mcp serve'],
    ] as const) {
      await usageError(
        [...args, '--permission-mode', 'sometimes'],
        /'--permission-mode <mode>' argument 'sometimes' is invalid/,
        command,
      );
      const help = await tea([...args.filter((a) => a !== '-p' && a !== 'hi'), '--help']);
      expect(help.stdout, command).toContain('--permission-mode <mode>');
      expect(help.stdout, command).not.toMatch(/--mode\b/);
    }
  });

  it('keeps --mode on tea mcp serve as a deprecated alias that warns once', async () => {
    // Over stdio with stdin closed at once: it says which mode it serves in, then ends.
    const r = await tea(['mcp', 'serve', '--mode', 'read-only']);
    expect(r.stderr.match(/--mode is deprecated; use --permission-mode/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/tea mcp serve: stdio, read-only mode/);
    expect(r.code).toBe(0);
    const given = await tea(['mcp', 'serve', '--permission-mode', 'auto-edit']);
    expect(given.stderr).not.toMatch(/deprecated/);
    expect(given.stderr).toMatch(/tea mcp serve: stdio, auto-edit mode/);
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addCommands, COMMAND_NAMES, mayNameCommand } from '../../src/cli/commands.js';
import { runTea, useScriptedCli } from '../support/cli.js';

describe('the subcommands a prompt run does not build', () => {
  it('COMMAND_NAMES are exactly the commands addCommands registers', () => {
    const program = new Command('tea');
    addCommands(program, () => undefined);
    expect(program.commands.map((c) => c.name()).sort()).toEqual([...COMMAND_NAMES].sort());
  });

  it('bin/tea.js gives every subcommand its own code cache kind (its list is COMMAND_NAMES)', () => {
    const bin = readFileSync(path.resolve(import.meta.dirname, '../../bin/tea.js'), 'utf8');
    const list = /const commands = \[([^\]]*)\]/.exec(bin)?.[1];
    expect(list).toBeDefined();
    const names = [...list!.matchAll(/'([^']+)'/g)].map((m) => m[1]);
    expect(names.sort()).toEqual([...COMMAND_NAMES].sort());
  });

  it.each([
    [['-p', 'hello', 'world'], false],
    [['-p', 'summarise the sessions table'], false],
    [['-p', '--cwd', '/tmp', 'fix', 'it'], false],
    [[], false],
    [['sessions'], true],
    [['--cwd', '/tmp', 'memory', 'list'], true],
    [['-p', 'list', 'my', 'sessions'], true], // a word equal to a command: built, then commander decides
    [['-p', 'hi', '--help'], true],
    [['-h'], true],
    [['help', 'memory'], true],
    [['memroy'], false], // a typo: the bare-words check names the closest command
  ])('argv %j may name a command: %s', (argv, expected) => {
    expect(mayNameCommand(argv)).toBe(expected);
  });
});

describe('commands still run behind root options', () => {
  const t = useScriptedCli();
  it('tea --cwd <dir> sessions list --json, and a misspelt command names the closest', async () => {
    const list = await runTea(['--cwd', t.ctx.work, 'sessions', 'list', '--json'], {
      env: t.ctx.env,
      cwd: t.ctx.work,
    });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({ sessions: [], total: 0 });
    const typo = await runTea(['memroy', 'list'], { env: t.ctx.env, cwd: t.ctx.work });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/memory/);
    const help = await runTea(['--help'], { env: t.ctx.env, cwd: t.ctx.work });
    for (const name of COMMAND_NAMES) expect(help.stdout).toMatch(new RegExp(`^\\s+${name}\\b`, 'm'));
  });
});

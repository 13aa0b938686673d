/** Flags before or after a subcommand: given values win over defaults, the subcommand's own over the root's. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandFlags } from '../../src/cli/flags.js';

function parse(argv: string[]): Record<string, unknown> {
  let seen: Record<string, unknown> = {};
  const collect = (v: string, prev: string[]) => [...prev, v];
  const program = new Command('tea')
    .enablePositionalOptions()
    .exitOverride()
    .option('-c, --continue')
    .option('--yolo')
    .option('--allow <rule>', '', collect, [])
    .option('--cwd <dir>');
  program
    .command('serve')
    .option('--yolo')
    .option('--allow <rule>', '', collect, [])
    .option('--cwd <dir>')
    .option('-c, --category <name>', '', 'fact')
    .action((_o, cmd: Command) => {
      seen = commandFlags(cmd);
    });
  program.parse(argv, { from: 'user' });
  return seen;
}

describe('commandFlags', () => {
  it('takes the subcommand’s given values over the root’s defaults', () => {
    expect(parse(['serve', '--allow', 'write_file:a.txt', '--cwd', '/w'])).toMatchObject({
      allow: ['write_file:a.txt'],
      cwd: '/w',
    });
  });

  it('takes the root’s given values when the subcommand was given none', () => {
    expect(parse(['--yolo', '--allow', 'bash', 'serve'])).toMatchObject({ yolo: true, allow: ['bash'] });
  });

  it('prefers the subcommand’s value when both were given, and keeps a subcommand’s -c apart from the root’s', () => {
    expect(parse(['--cwd', '/root', 'serve', '--cwd', '/sub'])).toMatchObject({ cwd: '/sub' });
    const flags = parse(['serve', '-c', 'preference']);
    expect(flags).toMatchObject({ category: 'preference' });
    expect(flags.continue).toBeUndefined();
  });
});

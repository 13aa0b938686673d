/**
 * `tea evolve`: self-evolution. `prompts` (versions of the default system prompt's
 * instructions: list, show, diff, set, rollback, evolve), `report` and `upkeep`.
 * Options only here; evolve-cmd.ts and evolve-view.ts load when one runs.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { EvolveFlags } from './evolve-cmd.js';
import { commandFlags } from './flags.js';
import { positiveInt } from './options.js';

/** A prompt version number as an option value (`--promote 3`, `v3`). */
function versionArg(value: string): number {
  const t = value.trim().replace(/^v/i, '');
  if (!/^\d{1,9}$/.test(t) || Number(t) < 1)
    throw new InvalidArgumentError('expected a prompt version number (tea evolve prompts list)');
  return Number(t);
}

export function addEvolveCommand(program: Command, setCode: (code: number) => void): void {
  const evolve = program
    .command('evolve')
    .description(
      'self-evolution: prompt versions (tea evolve prompts), what the agent did and learnt (report), upkeep',
    );
  const cmd = async () => import('./evolve-cmd.js');
  const view = async () => import('./evolve-view.js');
  const flags = (c: Command): EvolveFlags => commandFlags<EvolveFlags>(c);
  const cwd = (c: Command) => c.option('--cwd <dir>', 'workspace directory (default: the current directory)');

  const prompts = evolve
    .command('prompts')
    .description(
      "versions of the default system prompt's instructions: list, show, diff, set, rollback, and evolve (a candidate from the cheap model)",
    );
  cwd(
    prompts
      .command('list', { isDefault: true })
      .description('every version: * marks the active one; candidates wait for you to set them')
      .option('--json', 'machine-readable output (with each version’s text)'),
  ).action(async (_o: unknown, c: Command) => setCode(await (await cmd()).listPrompts(flags(c))));
  cwd(
    prompts
      .command('show [version]')
      .description("a version's text (default: the active one) on stdout; what it is on stderr")
      .option('--json', 'machine-readable output'),
  ).action(async (version: string | undefined, _o: unknown, c: Command) =>
    setCode(await (await cmd()).showPrompt(version, flags(c))),
  );
  cwd(
    prompts
      .command('diff <a> [b]')
      .description('a unified diff from version a to version b (default: the active one)'),
  ).action(async (a: string, b: string | undefined, _o: unknown, c: Command) =>
    setCode(await (await cmd()).diffPrompts(a, b, flags(c))),
  );
  cwd(
    prompts
      .command('set [file]')
      .description(
        'make a new version from a file (- or piped: stdin) and activate it, or activate a candidate (--promote)',
      )
      .option('--promote <version>', 'activate this stored version (a candidate from evolve)', versionArg)
      .option('--note <text>', 'why this version (shown by list)')
      .option('--force', 'set it even though the checks find problems (too long, essentials missing)'),
  ).action(async (file: string | undefined, _o: unknown, c: Command) =>
    setCode(await (await cmd()).setPrompt(file, flags(c))),
  );
  cwd(
    prompts
      .command('rollback [version]')
      .description(
        'activate the version that was active before the current one was set (repeat to go further back), or the one given',
      ),
  ).action(async (version: string | undefined, _o: unknown, c: Command) =>
    setCode(await (await cmd()).rollbackPrompt(version, flags(c))),
  );
  cwd(
    prompts
      .command('evolve')
      .description(
        'ask the cheap model for a revision from recent task evaluations, failure lessons and reflections; stored as a candidate, unused until you set it',
      )
      .option('--days <n>', 'learn from this many days back', positiveInt, 30)
      .option('--json', 'machine-readable output'),
  ).action(async (_o: unknown, c: Command) => setCode(await (await cmd()).evolvePrompts(flags(c))));

  cwd(
    evolve
      .command('report')
      .description(
        'tool usage (calls, errors, median time), failure lessons, skills used, prompt versions, task evaluations',
      )
      .option('--days <n>', 'the window, in days back from now', positiveInt, 30)
      .option('--json', 'machine-readable output'),
  ).action(async (_o: unknown, c: Command) => setCode(await (await view()).report(flags(c))));
  cwd(
    evolve
      .command('upkeep')
      .description(
        'one round of upkeep now (tea serve runs one every hour): tool statistics, unused user tools and skills flagged, the tools reference (docs/TOOLS.md in Tea’s repository, else TEA_HOME/TOOLS.md) regenerated',
      )
      .option('--days <n>', 'statistics and "unused" look back this many days', positiveInt, 30)
      .option('--json', 'machine-readable output'),
  ).action(async (_o: unknown, c: Command) => setCode(await (await view()).upkeep(flags(c))));
}

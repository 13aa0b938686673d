/**
 * `tea workflow`: run, list, show, resume, cancel, history and fork workflows
 * (options only here; workflow-cmd.ts and workflow-view.ts load when one runs).
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { commandFlags } from './flags.js';
import { addPermissionFlags, permissionModeOption, positiveInt } from './options.js';
import type { RunFlags } from './workflow-cmd.js';

function keyValue(value: string, previous: string[]): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
    throw new InvalidArgumentError(
      'expected key=value (e.g. --input path=src/), the key a name the workflow declares',
    );
  }
  return [...previous, value];
}

function checkpoint(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1)
    throw new InvalidArgumentError('expected a checkpoint number (tea workflow history <run>)');
  return n;
}

/** The options of the subcommands that run a workflow (run, resume, fork). */
function runOptions(cmd: Command): Command {
  return addPermissionFlags(
    cmd
      .option('--json', 'one JSON event per line on stdout (the last: run_end)')
      .addOption(
        permissionModeOption('read-only | ask | auto-edit | yolo for tool nodes (default: config, else ask)'),
      ),
  )
    .option('--profile <name>', 'config profile agent nodes use')
    .option('-m, --model <model>', 'model for agent nodes (overrides the profile)')
    .option('--max-turns <n>', 'model calls per agent node before it stops', positiveInt)
    .option('--cwd <dir>', 'workspace directory (default: the current directory)');
}

export function addWorkflowCommand(program: Command, setCode: (code: number) => void): void {
  const workflow = program
    .command('workflow')
    .description(
      'durable workflows: run one, list, show a run (with its graph), resume after a crash, cancel, history, fork',
    );
  const cmd = async () => import('./workflow-cmd.js');
  const view = async () => import('./workflow-view.js');
  const flags = (c: Command): RunFlags => commandFlags<RunFlags>(c);

  runOptions(
    workflow
      .command('run <workflow>')
      .description('run a workflow: a name (tea workflow list) or a file (.yaml, .ts, .mjs)')
      .option(
        '-i, --input <key=value>',
        'an input value (repeatable; JSON for lists and objects)',
        keyValue,
        [],
      ),
  ).action(async (target: string, _o: unknown, c: Command) =>
    setCode(await (await cmd()).runWorkflow(target, flags(c))),
  );
  workflow
    .command('list')
    .description("the workflows there are (the project's, yours, the built-in ones) and the recent runs")
    .option('-n, --limit <n>', 'how many runs', positiveInt, 20)
    .option('--json', 'machine-readable output')
    .option('--cwd <dir>', 'workspace directory (default: the current directory)')
    .action(async (_o: unknown, c: Command) => setCode(await (await view()).listWorkflows(flags(c))));
  workflow
    .command('show <run>')
    .description('a run: status, input, output, each node, and a Mermaid graph of the run')
    .option('--json', 'machine-readable output')
    .option('--cwd <dir>', 'workspace directory (default: the current directory)')
    .action(async (run: string, _o: unknown, c: Command) =>
      setCode(await (await view()).showRun(run, flags(c))),
    );
  runOptions(
    workflow
      .command('resume <run>')
      .description(
        'go on with a run that crashed, was cancelled, failed or waits: completed nodes are not run again',
      )
      .option('--approve', 'approve the approval the run waits for')
      .option('--reject', 'reject the approval the run waits for'),
  ).action(async (run: string, _o: unknown, c: Command) =>
    setCode(await (await cmd()).resumeWorkflow(run, flags(c))),
  );
  workflow
    .command('cancel <run>')
    .description('stop a run (another process running it stops at its next heartbeat)')
    .option('--cwd <dir>', 'workspace directory (default: the current directory)')
    .action(async (run: string, _o: unknown, c: Command) =>
      setCode(await (await cmd()).cancelWorkflow(run, flags(c))),
    );
  workflow
    .command('history <run>')
    .description("a run's checkpoints: every node's start and result, numbered (fork from any)")
    .option('--json', 'machine-readable output')
    .option('--cwd <dir>', 'workspace directory (default: the current directory)')
    .action(async (run: string, _o: unknown, c: Command) =>
      setCode(await (await view()).runHistory(run, flags(c))),
    );
  runOptions(
    workflow
      .command('fork')
      .argument('<run>', 'the run (id or unique prefix)')
      .argument('<checkpoint>', 'the checkpoint number (tea workflow history <run>)', checkpoint)
      .description(
        "a new run from a run's checkpoints up to <checkpoint>, then run it (what came after runs again)",
      ),
  ).action(async (run: string, seq: number, _o: unknown, c: Command) =>
    setCode(await (await cmd()).forkWorkflow(run, seq, flags(c))),
  );
}

import { Command, InvalidArgumentError, Option } from 'commander';
import { addCommands, COMMAND_NAMES, mayNameCommand } from './commands.js';
import { CliError, EXIT, UsageError } from './exit.js';
import type { PromptFlags } from './flags.js';
import { collect, permissionModeOption, positiveInt } from './options.js';
import { SANDBOX_FLAG_HELP, sandboxFlag } from './sandbox-flag.js';
import { commanderMessage, type NamedCommand, usageLine } from './usage.js';
import { VERSION } from './version.js';

function outputFormat(value: string): 'text' | 'json' | 'stream-json' {
  if (value === 'text' || value === 'json' || value === 'stream-json') return value;
  throw new InvalidArgumentError('expected text, json or stream-json');
}

function buildProgram(setCode: (code: number) => void, withCommands: boolean): Command {
  // Set before any subcommand exists: subcommands copy this setting when created.
  const program = new Command('tea')
    .exitOverride()
    // Options after a subcommand belong to it: `tea memory add -c preference …` is the
    // subcommand's --category, not the root's --continue.
    .enablePositionalOptions()
    .description('Tea Agent: an AI agent that does real work on your machine.')
    .version(VERSION, '-V, --version')
    .argument(
      '[prompt...]',
      'what to do, with -p; without -p only as the instruction for text piped on stdin (git diff | tea review this)',
    )
    .option('-p, --print', 'run one prompt, print the answer and exit')
    .option(
      '--output-format <format>',
      'text | json | stream-json (one event per line)',
      outputFormat,
      'text',
    )
    .option('-m, --model <model>', 'model name for this run (overrides main_model.model)')
    .option('--profile <name>', 'config profile to use as the main model')
    .addOption(
      new Option('-c, --continue', 'continue the most recent session in this directory').conflicts('resume'),
    )
    .option('-r, --resume <id>', 'resume a session by id or unique prefix')
    .option('--max-turns <n>', 'model calls per turn before stopping (default 25)', positiveInt)
    .option('--cwd <dir>', 'workspace directory (default: the current directory)')
    .option('-v, --verbose', 'show tool activity on stderr even when it is not a terminal')
    .option(
      '--work-mode <name>',
      'work mode: design | develop | test | review | docs | devops, or one from config (default: config default_mode, else develop)',
    )
    .addOption(permissionModeOption('read-only | ask | auto-edit | yolo (default: config, else ask)'))
    .option('--yolo', 'run every tool without asking (same as --permission-mode yolo)')
    .option(
      '--allow <rule>',
      "allow a tool without asking: 'tool' or 'tool:pattern' (repeatable)",
      collect,
      [],
    )
    .option('--add-dir <dir>', 'another directory file tools may use (repeatable)', collect, [])
    .option('--sandbox <mode>', SANDBOX_FLAG_HELP, sandboxFlag)
    .option('--plain', 'without -p in a terminal: the plain line prompt instead of the full-screen UI')
    .action(async (words: string[], opts: PromptFlags) => {
      // Before stdin is read: a wrong directory is reported at once.
      if (opts.cwd !== undefined) (await import('../runtime/directories.js')).workspaceDir(opts.cwd);
      // Words without -p: a typo of a command, or a prompt nobody asked to run (bare-words.ts).
      if (!opts.print && words.length > 0) {
        const { checkBareWords, stdinIsPiped } = await import('./bare-words.js');
        checkBareWords(words, COMMAND_NAMES, stdinIsPiped());
      }
      if (!opts.print && words.length === 0 && process.stdin.isTTY) {
        const { runTui, wantsTui } = await import('./tui/start.js');
        if (wantsTui(opts)) {
          setCode(await runTui(opts));
          return;
        }
        const { runInteractive } = await import('./interactive.js');
        setCode(await runInteractive(opts));
        return;
      }
      const { runPrompt } = await import('./print.js');
      setCode(await runPrompt(words, opts));
    });
  program.addHelpText(
    'after',
    '\nWithout -p, words run as a prompt only for text piped on stdin; otherwise they must name a\n' +
      'command (a misspelt one is refused, with the closest). tea alone starts the interactive prompt.\n',
  );
  if (withCommands) addCommands(program, setCode);
  return program;
}

/** Every command of the tree, the program first. */
function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

/**
 * `tea … | head`: when whoever reads our output goes away, stop quietly (exit 0,
 * like other tools at the end of a pipe) instead of dying with a stack trace.
 */
function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(EXIT.OK);
      throw e;
    });
  }
}

let completed = false;

/**
 * Whether the last `main` ran a command (not only help or a usage error) that finished
 * with exit code 0: bin/code-cache.js keeps the code cache of such a run.
 */
export function ranToCompletion(): boolean {
  return completed;
}

/** Runs the CLI and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  completed = false;
  exitQuietlyOnClosedPipe();
  let code: number = EXIT.OK;
  const program = buildProgram((c) => {
    code = c;
  }, mayNameCommand(argv));
  // The command a usage error belongs to: the one commander was parsing, or the one running.
  let current: NamedCommand | undefined;
  let failed: Command | undefined;
  for (const command of allCommands(program)) {
    command.configureOutput({
      outputError: () => {
        current = command;
        failed = command;
      },
    });
  }
  program.hook('preAction', (_program, action) => {
    current = action;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    completed = current !== undefined && code === EXIT.OK;
    return code;
  } catch (e) {
    const typo = failed ? (await import('./bare-words.js')).subcommandTypo(e, failed) : undefined;
    return typo ? reportError(typo.error, typo.command) : reportError(e, current);
  }
}

/** SQLite's codes for a damaged file, anywhere in the error's cause chain (checked without loading the store). */
function looksDamaged(e: unknown): boolean {
  for (let x = e; x instanceof Error; x = x.cause) {
    const code = 'code' in x ? x.code : undefined;
    if (code === 'damaged' || code === 'SQLITE_NOTADB') return true;
    if (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT')) return true;
  }
  return false;
}

async function reportError(e: unknown, command: NamedCommand | undefined): Promise<number> {
  if (looksDamaged(e)) {
    const { damageReport } = await import('../runtime/database.js');
    const report = damageReport(e);
    if (report) {
      process.stderr.write(`tea: ${report}\n`);
      return EXIT.ERROR;
    }
  }
  if (e instanceof UsageError) {
    process.stderr.write(`${usageLine(e.message, command)}\n`);
    return e.exitCode;
  }
  if (e instanceof Error && e.name === 'RuntimeError') {
    const code = (e as { code?: string }).code;
    if (code === 'usage') {
      process.stderr.write(`${usageLine(e.message, command)}\n`);
      return EXIT.USAGE;
    }
    if (code === 'no_model') {
      process.stderr.write(`tea: ${e.message}\n(exit code 3: no model configured)\n`);
      return EXIT.NO_MODEL;
    }
    process.stderr.write(`tea: ${e.message}\n`);
    return EXIT.USAGE;
  }
  if (e instanceof CliError) {
    process.stderr.write(`tea: ${e.message}\n`);
    return e.exitCode;
  }
  // commander's own exits: help and version have printed; a usage error is ours to print.
  if (
    e &&
    typeof e === 'object' &&
    'code' in e &&
    typeof e.code === 'string' &&
    e.code.startsWith('commander.')
  ) {
    const exitCode = 'exitCode' in e && typeof e.exitCode === 'number' ? e.exitCode : EXIT.USAGE;
    if (exitCode === 0) return EXIT.OK;
    const message = 'message' in e && typeof e.message === 'string' ? e.message : String(e.code);
    if (e.code !== 'commander.help' && e.code !== 'commander.helpDisplayed')
      process.stderr.write(`${usageLine(commanderMessage(message), command)}\n`);
    return EXIT.USAGE;
  }
  if (e instanceof Error && e.name === 'ConfigError') {
    process.stderr.write(`tea: invalid configuration\n${e.message}\n`);
    return EXIT.USAGE;
  }
  if (e instanceof Error && e.name === 'StoreError') {
    process.stderr.write(`tea: ${e.message}\n`);
    return EXIT.USAGE;
  }
  const message = e instanceof Error ? (e.stack ?? e.message) : String(e);
  process.stderr.write(`tea: unexpected error: ${message}\n`);
  return EXIT.ERROR;
}

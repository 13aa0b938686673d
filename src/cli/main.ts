import { Command, InvalidArgumentError, Option } from 'commander';
import { CliError, EXIT, UsageError } from './exit.js';
import { addFaceCommands } from './faces.js';
import { commandFlags, type PromptFlags } from './flags.js';
import { collect, permissionModeOption } from './options.js';
import { SANDBOX_FLAG_HELP, sandboxFlag } from './sandbox-flag.js';
import type { TrustFlags } from './trust-cmd.js';
import { commanderMessage, type NamedCommand, usageLine } from './usage.js';
import { VERSION } from './version.js';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function outputFormat(value: string): 'text' | 'json' | 'stream-json' {
  if (value === 'text' || value === 'json' || value === 'stream-json') return value;
  throw new InvalidArgumentError('expected text, json or stream-json');
}

function buildProgram(setCode: (code: number) => void): Command {
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
    .action(async (words: string[], opts: PromptFlags) => {
      // Before stdin is read: a wrong directory is reported at once.
      if (opts.cwd !== undefined) (await import('../runtime/directories.js')).workspaceDir(opts.cwd);
      // Words without -p: a typo of a command, or a prompt nobody asked to run (bare-words.ts).
      if (!opts.print && words.length > 0) {
        const { checkBareWords, stdinIsPiped } = await import('./bare-words.js');
        checkBareWords(
          words,
          program.commands.map((c) => c.name()),
          stdinIsPiped(),
        );
      }
      if (!opts.print && words.length === 0 && process.stdin.isTTY) {
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

  const sessions = program.command('sessions').description('list, show and remove stored sessions');
  sessions
    .command('list', { isDefault: true })
    .description('recent sessions, newest first')
    .option('-n, --limit <n>', 'how many', positiveInt, 20)
    .option('--here', 'only sessions whose workspace is the current directory')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const { listSessions } = await import('./sessions.js');
      setCode(await listSessions(opts));
    });
  sessions
    .command('show <id>')
    .description('print a session transcript (id or unique prefix)')
    .option('--json', 'machine-readable output')
    .option('--full', 'do not shorten long tool results')
    .action(async (id: string, opts) => {
      const { showSession } = await import('./sessions.js');
      setCode(await showSession(id, opts));
    });
  sessions
    .command('rm <ids...>')
    .description('delete sessions (ids or unique prefixes)')
    .action(async (ids: string[]) => {
      const { removeSessions } = await import('./sessions.js');
      setCode(await removeSessions(ids));
    });

  const db = program
    .command('db')
    .description('the database file: check it, back it up, repair it or restore a backup (after damage)');
  db.command('check')
    .description("SQLite's integrity check of the database, and the backups there are")
    .action(async () => setCode(await (await import('./db-cmd.js')).dbCheck()));
  db.command('backup')
    .description('make a checked backup now (tea makes one a day; the newest three are kept)')
    .action(async () => setCode(await (await import('./db-cmd.js')).dbBackup()));
  db.command('repair')
    .description(
      'after damage: rebuild the database from every row that can still be read (nothing is lost when only indexes are damaged); the damaged file is kept beside it',
    )
    .action(async () => setCode(await (await import('./db-cmd.js')).dbRepair()));
  db.command('restore [backup]')
    .description(
      'put the newest good backup (or the one named) in place; the old file is kept beside it. Says what the backup holds against what can still be read, and asks first when it holds less',
    )
    .option('-y, --yes', 'restore even when the backup holds fewer sessions, messages or memories')
    .action(async (from: string | undefined, opts: { yes?: boolean }) =>
      setCode(await (await import('./db-cmd.js')).dbRestore(from, opts)),
    );

  const memory = program
    .command('memory')
    .description('long-term memories: list, search, add, history, restore, rm, pin, export, import');
  const mem = async () => (await import('./memory-cmd.js')).memoryCommands;
  memory
    .command('list', { isDefault: true })
    .description('active memories (--all: history too)')
    .option('--all', 'include superseded and deleted memories')
    .option('-n, --limit <n>', 'how many', positiveInt, 100)
    .option('--json', 'machine-readable output')
    .action(async (opts) => setCode(await (await mem()).list(opts)));
  memory
    .command('search <query...>')
    .description('hybrid search (full text + vectors) with scores; versions of one fact folded, newest first')
    .option('-n, --limit <n>', 'how many', positiveInt, 10)
    .option('--all', 'also weak matches (no relevance cut-off)')
    .option('--json', 'machine-readable output')
    .action(async (query: string[], opts) => setCode(await (await mem()).search(query.join(' '), opts)));
  memory
    .command('add <text...>')
    .description(
      'remember something (repeats are skipped; a new value of the same fact replaces the old one)',
    )
    .option('-c, --category <name>', 'instruction | preference | fact | reminder | general', 'fact')
    .option('-i, --importance <n>', '1 (trivial) … 5 (critical)', positiveInt)
    .option('--pin', 'exempt from decay')
    .option('--offline', 'decide duplicates and updates without asking the model')
    .action(async (text: string[], opts) => setCode(await (await mem()).add(text.join(' '), opts)));
  memory
    .command('history <id>')
    .description('every version of the fact a memory belongs to, with the dates each held')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts) => setCode(await (await mem()).history(id, opts)));
  memory
    .command('restore <id>')
    .description('make a superseded or forgotten memory active again')
    .option('--replace', 'make it the current version (supersede the one that replaced it)')
    .action(async (id: string, opts) => setCode(await (await mem()).restore(id, opts)));
  memory
    .command('rm <ids...>')
    .description('forget memories (kept in history; tea memory restore brings one back)')
    .action(async (ids: string[]) => setCode(await (await mem()).rm(ids)));
  memory
    .command('pin <id>')
    .description('pin a memory (--off to unpin)')
    .option('--off', 'unpin')
    .action(async (id: string, opts) => setCode(await (await mem()).pin(id, opts)));
  memory
    .command('export [file]')
    .description('every memory, history included, as JSON')
    .action(async (file?: string) => setCode(await (await mem()).exportTo(file)));
  memory
    .command('import <file>')
    .description(
      'add memories from JSON (an export, or a list of {content, created_at, category, tags}) or JSON Lines',
    )
    .option('--ingest', 'run each statement through the duplicate/update decisions, oldest first')
    .option('--offline', 'with --ingest: decide without asking the model')
    .action(async (file: string, opts) => setCode(await (await mem()).importFrom(file, opts)));
  memory
    .command('profile [text...]')
    .description('show or set the user profile block (≤ 1,500 characters, always injected)')
    .action(async (text?: string[]) => setCode(await (await mem()).profile(text)));

  const tools = program.command('tools').description('list the tools the agent can use, or show one');
  tools
    .command('list', { isDefault: true })
    .description('every tool: name, category, approval class, description')
    .option('--category <name>', 'only this category')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const { listTools } = await import('./tools-cmd.js');
      setCode(await listTools(opts));
    });
  tools
    .command('show <name>')
    .description("a tool's metadata and the JSON schema the model sees")
    .option('--json', 'machine-readable output')
    .action(async (name: string, opts) => {
      const { showTool } = await import('./tools-cmd.js');
      setCode(await showTool(name, opts));
    });

  const config = program
    .command('config')
    .description('print the effective configuration (secrets masked) and whether the sandbox works here')
    .option('--cwd <dir>', 'project directory whose .tea/config.yaml applies')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const { printConfig } = await import('./config-cmd.js');
      setCode(await printConfig(opts));
    });
  config
    .command('check')
    .description('validate the configuration and ping each configured model')
    .option('--cwd <dir>', 'project directory whose .tea/config.yaml applies')
    .action(async (opts) => {
      const { checkConfig } = await import('./config-cmd.js');
      setCode(await checkConfig(opts));
    });
  program
    .command('trust')
    .description(
      "trust this project's .tea/config.yaml, so its model endpoints, keys, MCP servers, env_allow and looser permissions apply (until the file changes)",
    )
    .option('--cwd <dir>', 'project directory (default: the current directory)')
    .option('--list', 'list the project config files you trusted or declined')
    .option('--revoke', "stop trusting this project's config")
    .option('--json', 'with --list: machine-readable output')
    .action(async (_opts: TrustFlags, cmd: Command) => {
      const { trustCommand } = await import('./trust-cmd.js');
      setCode(await trustCommand(commandFlags<TrustFlags>(cmd)));
    });
  addFaceCommands(program, setCode);
  program
    .command('help [command...]')
    .description('show the help of tea or of one of its commands (tea help sessions list)')
    .action(async (names: string[]) => (await import('./bare-words.js')).showHelp(program, names));
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

/** Runs the CLI and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  exitQuietlyOnClosedPipe();
  let code: number = EXIT.OK;
  const program = buildProgram((c) => {
    code = c;
  });
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

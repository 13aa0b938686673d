/**
 * tea's subcommands (sessions, db, memory, tools, config, trust, workflow, skills, evolve, serve, acp, mcp, trace, help).
 * main.ts adds them only when the command line could name one (or asks for help): a
 * prompt run does not build ~40 commands it will not use. Each loads its implementation
 * only when it runs.
 */
import type { Command } from 'commander';
import { addEvolveCommand } from './evolve-cli.js';
import { addFaceCommands } from './faces.js';
import { commandFlags } from './flags.js';
import { positiveInt } from './options.js';
import { addSkillsCommand } from './skills-cli.js';
import type { TrustFlags } from './trust-cmd.js';
import { addWorkflowCommand } from './workflow-cli.js';

/** The names of tea's subcommands, as `addCommands` registers them (test/cli/commands.test.ts checks). */
export const COMMAND_NAMES: readonly string[] = [
  'sessions',
  'db',
  'memory',
  'tools',
  'config',
  'trust',
  'serve',
  'acp',
  'mcp',
  'workflow',
  'skills',
  'trace',
  'evolve',
  'help',
];

/**
 * Whether `argv` may run a subcommand or print help that lists them: a word equal to a
 * command's name anywhere (commander dispatches on the first operand; a word that is an
 * option's value only costs building the commands), or a help flag.
 */
export function mayNameCommand(argv: readonly string[]): boolean {
  return argv.some((a) => a === '-h' || a === '--help' || COMMAND_NAMES.includes(a));
}

/** Adds every subcommand to `program`; `setCode` receives a command's exit code. */
export function addCommands(program: Command, setCode: (code: number) => void): void {
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
    .option('-c, --category <name>', 'instruction | preference | fact | reminder | general | lesson', 'fact')
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

  const tools = program
    .command('tools')
    .description('list the tools the agent can use, or show one; tea tools user: the tools it wrote');
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
  const user = tools
    .command('user')
    .description('the tools the agent wrote for itself (TEA_HOME/tools): list, show, rm');
  const userCmd = async () => import('./user-tools-cmd.js');
  user
    .command('list', { isDefault: true })
    .description('every user tool: current version, approval class, versions, last change')
    .option('--json', 'machine-readable output')
    .action(async (opts) => setCode(await (await userCmd()).listUserTools(opts)));
  user
    .command('show <name>')
    .description("a user tool's facts and the source of its current version (or --version)")
    .option('--version <version>', 'another saved version, e.g. 1.0.0')
    .option('--json', 'machine-readable output')
    .action(async (name: string, opts) => setCode(await (await userCmd()).showUserTool(name, opts)));
  user
    .command('rm <name>')
    .description('remove a user tool and every saved version of it')
    .action(async (name: string) => setCode(await (await userCmd()).removeUserTool(name)));
  user
    .command('rollback <name> <version>')
    .description('make a saved version of a user tool current again (tea tools user show lists them)')
    .action(async (name: string, version: string) =>
      setCode(await (await userCmd()).rollbackUserTool(name, version)),
    );

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
  addWorkflowCommand(program, setCode);
  addSkillsCommand(program, setCode);
  addEvolveCommand(program, setCode);
  addFaceCommands(program, setCode);
  const trace = program
    .command('trace')
    .description('traces of runs kept here: the spans of each prompt, model call and tool call');
  trace
    .command('list', { isDefault: true })
    .description('runs with kept traces, the most recent first')
    .option('-n, --limit <n>', 'how many', positiveInt, 20)
    .option('--json', 'machine-readable output')
    .action(async (opts) => setCode(await (await import('./trace-cmd.js')).traceList(opts)));
  trace
    .command('show <run>')
    .description('the span tree of a run: a session id or a workflow run id (or a unique prefix)')
    .option('--json', 'machine-readable output')
    .action(async (run: string, opts) =>
      setCode(await (await import('./trace-cmd.js')).traceShow(run, opts)),
    );
  program
    .command('help [command...]')
    .description('show the help of tea or of one of its commands (tea help sessions list)')
    .action(async (names: string[]) => (await import('./bare-words.js')).showHelp(program, names));
}

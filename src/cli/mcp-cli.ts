import { type Command, InvalidArgumentError } from 'commander';
import { commandFlags } from './flags.js';
import { collect, deprecatedModeOption, permissionModeOption } from './options.js';
import { SANDBOX_FLAG_HELP, sandboxFlag } from './sandbox-flag.js';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError('expected a port, 0-65535');
  return n;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number of seconds');
  return n;
}

/** Flags may sit before `mcp` (the root program knows --cwd, --yolo, --allow) or after it. */
function flags<T>(command: Command): T {
  return commandFlags<T>(command);
}

/** Registers `tea mcp` (options only; the implementation loads when it runs). */
export function addMcpCommand(program: Command, setCode: (code: number) => void): void {
  const impl = () => import('./mcp-cmd.js');
  const mcp = program.command('mcp').description('MCP servers: list, tools, call, login, logout, serve');
  mcp
    .command('list', { isDefault: true })
    .description('configured MCP servers: transport, enabled, cached tool count')
    .option('--cwd <dir>', 'project directory whose .tea/config.yaml applies')
    .option('--json', 'machine-readable output')
    .action(async (_opts, command: Command) => setCode(await (await impl()).listServers(flags(command))));
  mcp
    .command('tools <server>')
    .description(
      'connect to a server (a configured name or a URL) and list its tools (refreshes the cached list)',
    )
    .option('--cwd <dir>', 'project directory whose .tea/config.yaml applies')
    .option('--sandbox <mode>', SANDBOX_FLAG_HELP, sandboxFlag)
    .option('--login', 'log in in a browser if the server asks (default: only on a terminal)')
    .option('--no-browser', 'print the login address; do not open a browser')
    .option('--json', 'machine-readable output')
    .action(async (server: string, _opts, command: Command) =>
      setCode(await (await impl()).listServerTools(server, flags(command))),
    );
  mcp
    .command('call <server> <tool> [args]')
    .description('call one tool of a server (a configured name or a URL); args: a JSON object')
    .option('--cwd <dir>', 'project directory whose .tea/config.yaml applies')
    .option('--sandbox <mode>', SANDBOX_FLAG_HELP, sandboxFlag)
    .option('--login', 'log in in a browser if the server asks (default: only on a terminal)')
    .option('--no-browser', 'print the login address; do not open a browser')
    .option('--json', 'print the raw tools/call result')
    .action(async (server: string, tool: string, args: string | undefined, _opts, command: Command) =>
      setCode(await (await impl()).callServerTool(server, tool, args, flags(command))),
    );
  mcp
    .command('login <server>')
    .description(
      'log in to a remote server with OAuth in a browser (tokens kept in TEA_HOME/mcp-auth, mode 0600)',
    )
    .option('--cwd <dir>', 'project directory whose .tea/config.yaml applies')
    .option('--no-browser', 'print the login address; do not open a browser')
    .option('--timeout <s>', 'how long to wait for the browser (default 300)', seconds)
    .action(async (server: string, _opts, command: Command) =>
      setCode(await (await impl()).loginServer(server, flags(command))),
    );
  mcp
    .command('logout <server>')
    .description('forget the stored OAuth login of a remote server')
    .option('--cwd <dir>', 'project directory whose .tea/config.yaml applies')
    .action(async (server: string, _opts, command: Command) =>
      setCode(await (await impl()).logoutServer(server, flags(command))),
    );
  mcp
    .command('serve')
    .description("offer Tea's tools to MCP clients (stdio by default: protocol on stdout, logs on stderr)")
    .option('--http', 'serve HTTP instead of stdio: streamable HTTP at /mcp, legacy SSE at /sse')
    .option('--port <n>', 'HTTP port (0: any free port)', port, 0)
    .option('--host <host>', 'HTTP address to bind', '127.0.0.1')
    .option('--token <token>', 'bearer token clients must send (required off loopback; or $TEA_MCP_TOKEN)')
    .option(
      '--max-sessions <n>',
      'HTTP sessions open at once, at most; a new one replaces the one idle the longest (default 32)',
      positive,
    )
    .option('--session-idle <seconds>', 'close an HTTP session idle this long (default 1800)', positive)
    .addOption(permissionModeOption('read-only | ask | auto-edit | yolo (default: config, else ask)'))
    .addOption(deprecatedModeOption())
    .option('--yolo', 'run every tool without asking (same as --permission-mode yolo)')
    .option('--allow <rule>', "allow a tool: 'tool' or 'tool:pattern' (repeatable)", collect, [])
    .option('--add-dir <dir>', 'another directory file tools may use (repeatable)', collect, [])
    .option('--cwd <dir>', 'workspace directory (default: the current directory)')
    .option('--sandbox <mode>', SANDBOX_FLAG_HELP, sandboxFlag)
    .action(async (_opts, command: Command) => setCode(await (await impl()).serveMcp(flags(command))));
}

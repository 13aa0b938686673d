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

/** Flags may sit before `mcp` (the root program knows --cwd, --yolo, --allow) or after it. */
function flags<T>(command: Command): T {
  return commandFlags<T>(command);
}

/** Registers `tea mcp` (options only; the implementation loads when it runs). */
export function addMcpCommand(program: Command, setCode: (code: number) => void): void {
  const impl = () => import('./mcp-cmd.js');
  const mcp = program.command('mcp').description('MCP servers: list, tools, serve');
  mcp
    .command('list', { isDefault: true })
    .description('configured MCP servers: transport, enabled, cached tool count')
    .option('--cwd <dir>', 'project directory whose .tea/config.yaml applies')
    .option('--json', 'machine-readable output')
    .action(async (_opts, command: Command) => setCode(await (await impl()).listServers(flags(command))));
  mcp
    .command('tools <server>')
    .description('connect to a server and list its tools (refreshes the cached list)')
    .option('--cwd <dir>', 'project directory whose .tea/config.yaml applies')
    .option('--sandbox <mode>', SANDBOX_FLAG_HELP, sandboxFlag)
    .option('--json', 'machine-readable output')
    .action(async (server: string, _opts, command: Command) =>
      setCode(await (await impl()).listServerTools(server, flags(command))),
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

import { type Command, InvalidArgumentError } from 'commander';
import { parseHostEntry } from '../config/server.js';
import { commandFlags } from './flags.js';
import { collect, deprecatedModeOption, permissionModeOption } from './options.js';
import { SANDBOX_FLAG_HELP, sandboxFlag } from './sandbox-flag.js';

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw new InvalidArgumentError('expected a port number 0-65535 (0 = any free port)');
  }
  return n;
}

function origin(value: string, previous: string[]): string[] {
  if (value !== '*' && !/^https?:\/\/[^/\s]+$/.test(value)) {
    throw new InvalidArgumentError(
      'expected an origin such as http://localhost:5173 (scheme://host[:port]) or *',
    );
  }
  return [...previous, value];
}

function allowedHost(value: string, previous: string[]): string[] {
  if (!parseHostEntry(value)) {
    throw new InvalidArgumentError(
      'expected a host name, optionally with :port, such as tea.example.com or my-box.local:8080 (no scheme or path)',
    );
  }
  return [...previous, value.trim().toLowerCase()];
}

function perMinute(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n))
    throw new InvalidArgumentError('expected requests per minute (0 = off)');
  return n;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(n) || n > 3600)
    throw new InvalidArgumentError(
      'expected seconds between 0 and 3600, such as 15 or 0.5 (0 = no keep-alives)',
    );
  return n;
}

function fieldName(value: string): string {
  if (!/^[A-Za-z_][\w-]{0,63}$/.test(value)) throw new InvalidArgumentError('expected a JSON field name');
  return value;
}

/** Registers `tea serve` (options only; the HTTP server loads when it runs). */
export function addServeCommand(program: Command, setCode: (code: number) => void): void {
  program
    .command('serve')
    .description('run the HTTP API (OpenAI-compatible) and the web UI')
    .option('--host <address>', 'address to bind; anything but loopback needs TEA_API_TOKEN', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 = any free port)', port, 8080)
    .addOption(
      permissionModeOption(
        'read-only | ask | auto-edit | yolo, for requests that cannot answer approvals (default: config, else ask)',
      ),
    )
    .addOption(deprecatedModeOption())
    .option('--yolo', 'run every tool without asking (same as --permission-mode yolo)')
    .option(
      '--allow <rule>',
      "allow a tool without asking: 'tool' or 'tool:pattern' (repeatable)",
      collect,
      [],
    )
    .option('--add-dir <dir>', 'another directory file tools may use (repeatable)', collect, [])
    .option('--cors <origin>', 'allow this browser origin (repeatable; CORS is off by default)', origin, [])
    .option(
      '--allowed-host <name>',
      'also answer to this Host name (repeatable; name or name:port; default: only the bound address and localhost)',
      allowedHost,
      [],
    )
    .option(
      '--reasoning-field <name>',
      'where chat-completion chunks carry reasoning',
      fieldName,
      'reasoning_content',
    )
    .option(
      '--keep-alive <seconds>',
      'send an SSE comment on event streams after this many silent seconds (0 = never)',
      seconds,
      15,
    )
    .option('--rate-limit <n>', 'requests per minute per client address (0 = off)', perMinute, 600)
    .option('--profile <name>', 'config profile used when a request names none')
    .option('--cwd <dir>', 'workspace directory (default: the current directory)')
    .option('--sandbox <mode>', SANDBOX_FLAG_HELP, sandboxFlag)
    .option(
      '--no-upkeep',
      'no hourly upkeep (tool statistics, unused tools and skills, the tools reference; see tea evolve upkeep)',
    )
    .action(async (_opts: unknown, cmd: Command) => {
      // Flags may sit before `serve` (the root's) or after it (its own): merged, given ones win.
      const { runServe } = await import('./serve-cmd.js');
      setCode(await runServe(commandFlags<Parameters<typeof runServe>[0]>(cmd)));
    });
}

/** bg_start, bg_output, bg_input, bg_kill, bg_list: long-running processes the agent checks on. */
import * as z from 'zod';
import { type Sandbox, sandboxNotes } from '../sandbox/index.js';
import { defineTool, type Tool } from '../types.js';
import { workspaceRoots } from '../workspace.js';
import type { BackgroundInfo, ProcessManager } from './process-manager.js';
import { formatDuration } from './smart-timeout.js';

export interface BackgroundToolOptions {
  manager: ProcessManager;
  /** The environment each process gets (already scrubbed). */
  env: () => NodeJS.ProcessEnv;
  /** Where processes run (default: unsandboxed). */
  sandbox?: Sandbox;
  /** After starting, how long bg_start waits for early output or an early exit (default 300 ms). */
  startPeekMs?: number;
  /** Default characters bg_output returns (default 8 000). */
  outputChars?: number;
}

const KEYWORDS = [
  'background',
  'process',
  'server',
  'daemon',
  'watch',
  'long-running',
  'job',
  '后台',
  '进程',
];
const MAX_WAIT_MS = 30_000;

function label(info: BackgroundInfo): string {
  return info.name ? `${info.id} (${info.name})` : info.id;
}

/** `running, pid 123, 4.2 s` or `exited with code 0 after 4.2 s`. */
export function describeStatus(info: BackgroundInfo, now = Date.now()): string {
  if (info.running) return `running, pid ${info.pid ?? '?'}, ${formatDuration(now - info.startedAt)}`;
  const ran = formatDuration((info.endedAt ?? now) - info.startedAt);
  if (info.exitCode !== null) return `exited with code ${info.exitCode} after ${ran}`;
  return `ended by ${info.exitSignal ?? 'an unknown cause'} after ${ran}`;
}

function withOutput(header: string, output: string): string {
  return output === '' ? `${header}\n(no new output)` : `${header}\n${output.replace(/\n$/, '')}`;
}

function idParam() {
  return z.string().min(1).describe('Process id from bg_start, e.g. "bg1"');
}

export function backgroundTools(opts: BackgroundToolOptions): Tool[] {
  const { manager } = opts;
  const outputChars = opts.outputChars ?? 8000;
  const subjectOf = (id: string): string => manager.commandOf(id) ?? id;

  const start = defineTool({
    name: 'bg_start',
    description:
      'Start a long-running shell command in the background (dev server, watcher, long build) and return its id. ' +
      'Read its output later with bg_output; stop it with bg_kill.',
    parameters: z.object({
      command: z.string().min(1).describe('The bash command line to run'),
      name: z.string().optional().describe('A short label, e.g. "dev server"'),
    }),
    category: 'exec',
    keywords: KEYWORDS,
    readOnly: false,
    concurrencySafe: false,
    approval: 'exec',
    timeoutMs: 30_000,
    subject: (args) => args.command,
    shell: true,
    async execute(args, ctx) {
      const launch = opts.sandbox
        ? await opts.sandbox.launch({
            command: 'bash',
            args: ['-c', args.command],
            cwd: ctx.cwd,
            writable: workspaceRoots(ctx).slice(1),
            env: opts.env(),
            network: await opts.sandbox.networkFor(ctx.permissions, args.command, {
              cwd: ctx.cwd,
              roots: workspaceRoots(ctx),
            }),
          })
        : undefined;
      const info = manager.start({
        command: args.command,
        cwd: ctx.cwd,
        sessionId: ctx.sessionId,
        env: launch?.env ?? opts.env(),
        ...(launch?.sandbox ? { launch } : {}),
        ...(args.name ? { name: args.name } : {}),
      });
      // A short look catches commands that fail at once (typos, missing programs).
      await manager.waitForExit(info.id, opts.startPeekMs ?? 300, ctx.signal);
      const { info: now, output } = manager.read(info.id, outputChars);
      const header = `Started ${label(now)}: ${describeStatus(now)}. Read its output with bg_output id "${now.id}".`;
      const notes = launch ? sandboxNotes(launch, args.command, output, now.exitCode) : [];
      return [withOutput(header, output), ...notes].join('\n');
    },
  });

  const output = defineTool({
    name: 'bg_output',
    description:
      'New output of a background process since the last read, plus whether it is still running. ' +
      'wait_ms waits for output to arrive.',
    parameters: z.object({
      id: idParam(),
      max_chars: z
        .number()
        .int()
        .min(100)
        .max(100_000)
        .optional()
        .describe(`Characters (default ${outputChars})`),
      wait_ms: z
        .number()
        .int()
        .min(0)
        .max(MAX_WAIT_MS)
        .optional()
        .describe('Wait up to this long for output'),
    }),
    category: 'exec',
    keywords: KEYWORDS,
    readOnly: true,
    concurrencySafe: false,
    approval: 'none',
    timeoutMs: MAX_WAIT_MS + 5000,
    subject: (args) => subjectOf(args.id),
    async execute(args, ctx) {
      await manager.waitForOutput(args.id, args.wait_ms ?? 0, ctx.signal);
      const { info, output: text } = manager.read(args.id, args.max_chars ?? outputChars);
      return withOutput(`${label(info)} ${describeStatus(info)}`, text);
    },
  });

  const input = defineTool({
    name: 'bg_input',
    description: "Write text to a background process's stdin (a newline is added unless close is set).",
    parameters: z.object({
      id: idParam(),
      text: z.string().describe('Text to send'),
      close: z.boolean().optional().describe('Close stdin afterwards (EOF), no newline added'),
    }),
    category: 'exec',
    keywords: [...KEYWORDS, 'stdin', 'input', 'send'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'exec',
    timeoutMs: 10_000,
    subject: (args) => subjectOf(args.id),
    async execute(args) {
      const text = args.close || args.text.endsWith('\n') ? args.text : `${args.text}\n`;
      await manager.write(args.id, text, args.close === true);
      const info = manager.info(args.id);
      const closed = args.close ? ' and closed stdin' : '';
      return `Sent ${text.length} chars to ${label(info)}${closed}; it is ${describeStatus(info)}. Use bg_output to see its answer.`;
    },
  });

  const kill = defineTool({
    name: 'bg_kill',
    description: 'Stop a background process and everything it started (its whole process group).',
    parameters: z.object({ id: idParam() }),
    category: 'exec',
    keywords: [...KEYWORDS, 'kill', 'stop', 'terminate', '停止'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'exec',
    timeoutMs: 30_000,
    subject: (args) => subjectOf(args.id),
    async execute(args) {
      const before = manager.info(args.id);
      const info = await manager.kill(args.id);
      const { output: text } = manager.read(args.id, outputChars);
      const verb = before.running ? 'Stopped' : 'Already finished:';
      return withOutput(`${verb} ${label(info)}; ${describeStatus(info)}`, text);
    },
  });

  const list = defineTool({
    name: 'bg_list',
    description: 'List background processes: id, name, pid, status (running or exit code), age and command.',
    parameters: z.object({}),
    category: 'exec',
    keywords: [...KEYWORDS, 'list', 'ps'],
    readOnly: true,
    concurrencySafe: false,
    approval: 'none',
    timeoutMs: 5000,
    async execute() {
      const all = manager.list();
      if (all.length === 0) return 'No background processes.';
      return all.map((info) => `${label(info)}: ${describeStatus(info)} — ${info.command}`).join('\n');
    },
  });

  return [start, output, input, kill, list];
}

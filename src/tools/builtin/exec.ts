/**
 * The exec family: bash (with a smart timeout), which, and the background-process
 * tools. Every program gets a scrubbed environment (env-scrub.ts) and runs in the
 * sandbox the options give (sandbox/).
 */
import * as z from 'zod';
import type { BackgroundJobs } from '../background-jobs.js';
import { HINTS } from '../hints.js';
import { Sandbox, sandboxNotes } from '../sandbox/index.js';
import { exitCodeLine, NO_OUTPUT } from '../shell-status.js';
import { savedOutputPath } from '../truncate.js';
import { defineTool, type Tool, type ToolResult } from '../types.js';
import { workspaceRoots } from '../workspace.js';
import { backgroundTools } from './background.js';
import { type EnvScrubOptions, scrubEnv } from './env-scrub.js';
import { type ClientRun, runInClient } from './exec-client.js';
import { type BuiltinOptions, withDefaults } from './options.js';
import { type CommandResult, runCommand } from './process.js';
import { ProcessManager } from './process-manager.js';
import { formatDuration, SMART_TIMEOUT_DEFAULTS, type SmartTimeoutOptions } from './smart-timeout.js';
import { whichTool } from './which.js';

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;

export interface ExecToolOptions extends BuiltinOptions {
  /** bash: the base deadline when the call sets no timeout_ms (default 120 000 ms). */
  bashDefaultTimeoutMs?: number;
  /** bash: extend the deadline while the command is busy (default true; Linux only). */
  bashSmartTimeout?: boolean;
  /** bash: how often the process tree is sampled (default 1 000 ms). */
  bashSampleMs?: number;
  /** bash: past the base deadline, stop after this long idle (default 30 000 ms). */
  bashIdleGraceMs?: number;
  /** bash: the hard cap as a multiple of the base deadline (default 4). */
  bashMaxFactor?: number;
  /** Drop secret-looking variables from programs' environments (default true). */
  envScrub?: boolean;
  /** Variable names passed through anyway (`NAME` or `PREFIX_*`); env_get shares this list. */
  envAllow?: string[];
  /** Variables Tea was configured with (api_key_env names, MCP env, tokens): always dropped. */
  envDenyNames?: string[];
  /** Secret values Tea was configured with: a variable holding one is dropped. */
  envDenyValues?: string[];
  /**
   * Where bash, bg_start and which's probe run (default: unsandboxed; every face
   * passes the configured sandbox, `auto` unless the user says otherwise).
   */
  sandbox?: Sandbox;
  /** The background-process manager (default: a new one per tool set). */
  processManager?: ProcessManager;
  /** Told when a background process starts or ends (the runtime's, for faces to show). */
  backgroundJobs?: BackgroundJobs;
  /** Background processes: unread output kept per process, head+tail (default 32 000 chars). */
  bgMaxBufferChars?: number;
  /** bg_start: how long it waits for early output or an early exit (default 300 ms). */
  bgStartPeekMs?: number;
  /** which: how long `--version` may take (default 2 000 ms). */
  whichVersionTimeoutMs?: number;
}

type KillReason = NonNullable<CommandResult['killed']>;

function statusLine(
  killed: KillReason | undefined,
  result: CommandResult,
  baseMs: number,
  factor: number,
): string {
  if (killed === undefined) {
    if (result.exitCode !== null) return exitCodeLine(result.exitCode);
    return `killed by signal ${result.exitSignal ?? 'unknown'}`;
  }
  switch (killed.reason) {
    case 'cancelled':
      return 'killed: cancelled';
    case 'timeout':
      return `killed: timeout after ${formatDuration(baseMs)}`;
    case 'limit':
      return `killed: ran ${formatDuration(baseMs * factor)}, the ${factor}× limit`;
    case 'idle':
      return killed.atBase
        ? `killed: timeout after ${formatDuration(baseMs)} (idle)`
        : `killed: timeout after ${formatDuration(baseMs)} (idle ${formatDuration(killed.idleMs)}, ran ${formatDuration(killed.ranMs)})`;
  }
}

function killHint(killed: KillReason): string | undefined {
  switch (killed.reason) {
    case 'idle':
      return 'it sat idle (no CPU, I/O or output), perhaps waiting for input or the network; make it non-interactive, or use bg_start for servers';
    case 'limit':
      return 'it was still busy at the hard limit; run long jobs with bg_start and check on them with bg_output';
    case 'timeout':
      return HINTS.timeout;
    default:
      return undefined;
  }
}

function bashTool(
  opts: Required<BuiltinOptions>,
  exec: ExecToolOptions,
  env: () => NodeJS.ProcessEnv,
  sandbox: Sandbox,
): Tool {
  const factor = exec.bashMaxFactor ?? SMART_TIMEOUT_DEFAULTS.maxFactor;
  const defaultTimeout = exec.bashDefaultTimeoutMs ?? BASH_DEFAULT_TIMEOUT_MS;
  return defineTool({
    name: 'bash',
    description:
      'Run a bash command in the workspace; returns exit code and stdout+stderr (head+tail). No stdin. ' +
      `The timeout (default ${defaultTimeout / 1000} s) stretches up to ${factor}× while the command stays busy.`,
    parameters: z.object({
      command: z.string().min(1).describe('The bash command line'),
      timeout_ms: z
        .number()
        .int()
        .min(1)
        .max(BASH_MAX_TIMEOUT_MS)
        .optional()
        .describe(`Base timeout in ms (max ${BASH_MAX_TIMEOUT_MS})`),
      description: z.string().optional().describe('What it does, in a few words'),
    }),
    category: 'exec',
    keywords: [
      'bash',
      'shell',
      'command',
      'run',
      'execute',
      'terminal',
      'script',
      'build',
      'test',
      'npm',
      '运行',
      '命令',
    ],
    readOnly: false,
    concurrencySafe: false,
    approval: 'exec',
    // The tool enforces its own deadline; the runner's limit is only a backstop.
    timeoutMs: BASH_MAX_TIMEOUT_MS * factor + opts.bashKillGraceMs + 10_000,
    subject: (args) => args.command,
    shell: true,
    async execute(args, ctx) {
      const baseMs = args.timeout_ms ?? defaultTimeout;
      const launch = await sandbox.launch({
        command: 'bash',
        args: ['-c', args.command],
        cwd: ctx.cwd,
        writable: workspaceRoots(ctx).slice(1),
        env: env(),
        network: await sandbox.networkFor(ctx.permissions, args.command, {
          cwd: ctx.cwd,
          roots: workspaceRoots(ctx),
        }),
      });
      const smart: SmartTimeoutOptions | false =
        exec.bashSmartTimeout === false
          ? false
          : {
              maxFactor: factor,
              ...(exec.bashSampleMs === undefined ? {} : { sampleMs: exec.bashSampleMs }),
              ...(exec.bashIdleGraceMs === undefined ? {} : { idleGraceMs: exec.bashIdleGraceMs }),
            };
      if (ctx.shell)
        return clientResult(
          await runInClient(ctx.shell, launch, ctx, {
            baseMs,
            smart,
            outputByteLimit: opts.bashMaxOutputChars,
          }),
        );
      const result = await runCommand({
        command: args.command,
        cwd: ctx.cwd,
        timeoutMs: baseMs,
        signal: ctx.signal,
        killGraceMs: opts.bashKillGraceMs,
        pipeDrainMs: opts.bashPipeDrainMs,
        maxOutputChars: opts.bashMaxOutputChars,
        // Past what memory holds, the whole output goes where the runner saves long outputs.
        ...(ctx.outputDir
          ? { spill: { path: savedOutputPath(ctx.outputDir, ctx.callId), maxBytes: opts.bashMaxSavedBytes } }
          : {}),
        env: launch.env,
        ...(launch.sandbox ? { launch } : {}),
        smart,
      });
      return report(result);

      /** The result as the model reads it: status line, output, notes, a hint when it was killed. */
      function report(result: CommandResult, notes: string[] = []): ToolResult {
        const lines = [statusLine(result.killed, result, baseMs, factor), ...notes];
        lines.push(result.output.length > 0 ? result.output.replace(/\n$/, '') : NO_OUTPUT);
        if (result.detachedOutput) {
          lines.push('(background processes still hold the output open; their later output is not captured)');
        }
        lines.push(...sandboxNotes(launch, args.command, result.output, result.exitCode));
        const hint = result.killed ? killHint(result.killed) : undefined;
        const saved = result.saved ? { savedOutput: result.saved } : {};
        if (hint !== undefined)
          return { output: `${lines.join('\n')}\nHint: ${hint}`, isError: true, ...saved };
        return { output: lines.join('\n'), ...saved };
      }

      function clientResult(run: ClientRun): ToolResult {
        return report(
          run.result,
          run.truncated
            ? [`(the terminal kept only the last ${opts.bashMaxOutputChars} bytes of the output)`]
            : [],
        );
      }
    },
  });
}

/** bash, which and the bg_* tools, sharing one ProcessManager. */
export function execTools(options: ExecToolOptions = {}): Tool[] {
  const opts = withDefaults(options);
  const scrub: EnvScrubOptions = {
    enabled: options.envScrub !== false,
    ...(options.envAllow ? { allow: options.envAllow } : {}),
    ...(options.envDenyNames ? { names: options.envDenyNames } : {}),
    ...(options.envDenyValues ? { values: options.envDenyValues } : {}),
  };
  const sandbox = options.sandbox ?? Sandbox.off();
  const env = (): NodeJS.ProcessEnv => scrubEnv(process.env, scrub);
  const manager =
    options.processManager ??
    new ProcessManager({
      killGraceMs: opts.bashKillGraceMs,
      ...(options.bgMaxBufferChars === undefined ? {} : { maxBufferChars: options.bgMaxBufferChars }),
    });
  if (options.backgroundJobs) {
    const report = options.backgroundJobs.reporter();
    manager.subscribe(({ type, info }) =>
      report(type, {
        id: info.id,
        name: info.name,
        command: info.command,
        sessionId: info.sessionId,
        startedAt: info.startedAt,
      }),
    );
  }
  return [
    bashTool(opts, options, env, sandbox),
    whichTool({
      env,
      sandbox,
      ...(options.whichVersionTimeoutMs === undefined
        ? {}
        : { versionTimeoutMs: options.whichVersionTimeoutMs }),
    }),
    ...backgroundTools({
      manager,
      env,
      sandbox,
      ...(options.bgStartPeekMs === undefined ? {} : { startPeekMs: options.bgStartPeekMs }),
    }),
  ];
}

/** The bash tool: run a shell command in the workspace. */
import * as z from 'zod';
import { formatSeconds } from '../abort.js';
import { HINTS } from '../hints.js';
import { defineTool, type Tool } from '../types.js';
import { type BuiltinOptions, withDefaults } from './options.js';
import { type CommandResult, runCommand } from './process.js';

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;

function statusLine(result: CommandResult, timeoutMs: number): string {
  if (result.killed === 'timeout') return `killed: timeout after ${formatSeconds(timeoutMs)}`;
  if (result.killed === 'cancelled') return 'killed: cancelled';
  if (result.exitCode !== null) return `exit code: ${result.exitCode}`;
  return `killed by signal ${result.exitSignal ?? 'unknown'}`;
}

function bashTool(opts: Required<BuiltinOptions>): Tool {
  return defineTool({
    name: 'bash',
    description:
      'Run a bash command in the workspace directory and return its exit code and combined stdout+stderr. ' +
      'Use it for builds, tests, git, package managers and anything the other tools cannot do. No stdin: ' +
      `interactive commands will not work. Default time limit ${BASH_DEFAULT_TIMEOUT_MS / 1000}s ` +
      `(timeout_ms, up to ${BASH_MAX_TIMEOUT_MS / 1000}s); long output keeps its head and tail.`,
    parameters: z.object({
      command: z.string().min(1).describe('The bash command line to run'),
      timeout_ms: z
        .number()
        .int()
        .min(1)
        .max(BASH_MAX_TIMEOUT_MS)
        .optional()
        .describe(
          `Time limit in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, max ${BASH_MAX_TIMEOUT_MS})`,
        ),
      description: z
        .string()
        .optional()
        .describe('A few words saying what the command does, shown to the user'),
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
      'git',
      'npm',
    ],
    readOnly: false,
    concurrencySafe: false,
    approval: 'exec',
    // The tool enforces `timeout_ms` itself; the runner's limit is only a backstop.
    timeoutMs: BASH_MAX_TIMEOUT_MS + opts.bashKillGraceMs + 10_000,
    async execute(args, ctx) {
      const timeoutMs = args.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS;
      const result = await runCommand({
        command: args.command,
        cwd: ctx.cwd,
        timeoutMs,
        signal: ctx.signal,
        killGraceMs: opts.bashKillGraceMs,
        pipeDrainMs: opts.bashPipeDrainMs,
        maxOutputChars: opts.bashMaxOutputChars,
      });
      const lines = [statusLine(result, timeoutMs)];
      lines.push(result.output.length > 0 ? result.output.replace(/\n$/, '') : '(no output)');
      if (result.detachedOutput) {
        lines.push('(background processes still hold the output open; their later output is not captured)');
      }
      if (result.killed === 'timeout') {
        return { output: `${lines.join('\n')}\nHint: ${HINTS.timeout}`, isError: true };
      }
      return lines.join('\n');
    },
  });
}

export function execTools(options: BuiltinOptions = {}): Tool[] {
  return [bashTool(withDefaults(options))];
}

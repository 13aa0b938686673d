/**
 * Running one tool call: validate, execute with a time limit and the user's cancel
 * signal, and turn every outcome into a model-readable result. Never throws.
 */
import type { z } from 'zod';
import type { ImagePart, ToolCallPart } from '../llm/types.js';
import { formatSeconds, whenAborted, withTimeout } from './abort.js';
import { HINTS, hintForError } from './hints.js';
import type { ToolRegistry } from './registry.js';
import { summarizeParameters } from './schema.js';
import { savedOutputPath, truncateHeadTail } from './truncate.js';
import {
  type AudioPart,
  type ResourcePart,
  type SavedOutput,
  type Tool,
  type ToolContext,
  ToolError,
  type ToolReturn,
} from './types.js';

export type ToolRunStatus = 'ok' | 'error' | 'cancelled' | 'denied';

/** The answer of `RunToolOptions.authorize`. */
export type Authorization =
  | { allowed: true }
  | { allowed: false; output: string; status: 'denied' | 'cancelled' };

export interface ToolRunResult {
  output: string;
  isError: boolean;
  images?: ImagePart[];
  audio?: AudioPart[];
  resources?: ResourcePart[];
  status: ToolRunStatus;
}

export interface RunToolOptions {
  /** Outputs longer than this are cut head+tail (default 30 000). */
  maxOutputChars?: number;
  /** Time limit for tools that set no `timeoutMs` (default 60 000). */
  defaultTimeoutMs?: number;
  /**
   * After a timeout or cancel, how long to wait for the tool to wind down (kill its
   * processes, return partial output) before answering without it (default 2 000).
   */
  abortGraceMs?: number;
  /**
   * Asked after the arguments are valid and before the tool runs (the approval
   * policy); a refusal becomes the call's result and the tool never runs.
   */
  authorize?: (tool: Tool, args: unknown, ctx: ToolContext) => Promise<Authorization>;
  /**
   * Called once the call is valid and allowed, right before the tool runs: never for
   * a call that is invalid, refused or cancelled before it started.
   */
  onStart?: () => void;
}

export const DEFAULT_MAX_OUTPUT_CHARS = 30_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
const DEFAULT_ABORT_GRACE_MS = 2_000;

type Settled = { ok: true; value: ToolReturn } | { ok: false; error: unknown };

export function formatError(message: string, hint?: string): string {
  return hint ? `[ERROR] ${message}\nHint: ${hint}` : `[ERROR] ${message}`;
}

function errorResult(message: string, hint?: string): ToolRunResult {
  return { output: formatError(message, hint), isError: true, status: 'error' };
}

/** The message and hint for a thrown value; never includes a stack trace. */
export function describeError(error: unknown): { message: string; hint: string | undefined } {
  if (error instanceof ToolError) return { message: error.message, hint: error.hint ?? hintForError(error) };
  if (error instanceof Error) return { message: error.message || error.name, hint: hintForError(error) };
  return { message: String(error), hint: undefined };
}

function formatIssuePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(arguments)';
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const message = issue.message.replace(/^Invalid input: /, '');
      const problem = message.endsWith(', received undefined')
        ? `required, ${message.slice(0, -', received undefined'.length)}`
        : message;
      return `${formatIssuePath(issue.path)}: ${problem}`;
    })
    .join('; ');
}

interface Normalized {
  output: string;
  isError: boolean;
  images?: ImagePart[];
  audio?: AudioPart[];
  resources?: ResourcePart[];
  savedOutput?: SavedOutput;
}

function normalizeReturn(value: ToolReturn): Normalized {
  if (typeof value === 'string') return { output: value, isError: false };
  if (typeof value !== 'object' || value === null) return { output: String(value), isError: false };
  const output = typeof value.output === 'string' ? value.output : String(value.output);
  const result: Normalized = { output, isError: value.isError === true };
  if (value.images && value.images.length > 0) result.images = value.images;
  if (value.audio && value.audio.length > 0) result.audio = value.audio;
  if (value.resources && value.resources.length > 0) result.resources = value.resources;
  if (value.savedOutput) result.savedOutput = value.savedOutput;
  return result;
}

/** A run's result before truncation: it may name a file the tool saved its whole output to. */
type Untruncated = ToolRunResult & { savedOutput?: SavedOutput };

function savedOf(settled: Settled | undefined): { savedOutput?: SavedOutput } {
  if (!settled?.ok) return {};
  const { savedOutput } = normalizeReturn(settled.value);
  return savedOutput ? { savedOutput } : {};
}

async function settle(run: () => Promise<ToolReturn>): Promise<Settled> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error };
  }
}

function delay(ms: number): { promise: Promise<undefined>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

interface Execution {
  settled: Settled | undefined;
  /** The call was stopped by the user; `settled` holds whatever the tool returned while stopping. */
  cancelled: boolean;
  timedOut: boolean;
  timeoutMs: number;
}

type Outcome = { settled: Settled | undefined; interrupted: boolean };

/** Runs the tool's `execute` under a combined cancel+timeout signal. */
async function execute(
  tool: Tool,
  args: unknown,
  ctx: ToolContext,
  opts: RunToolOptions,
): Promise<Execution> {
  const timeoutMs = tool.timeoutMs ?? opts.defaultTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const timed = withTimeout(ctx.signal, timeoutMs);
  const aborted = whenAborted(timed.signal);
  const running: Promise<Outcome> = settle(() => tool.execute(args, { ...ctx, signal: timed.signal })).then(
    (settled) => ({ settled, interrupted: timed.signal.aborted }),
  );
  try {
    let outcome: Outcome | undefined = await Promise.race([running, aborted.promise.then(() => undefined)]);
    if (outcome === undefined) {
      // Give the tool a moment to stop its work and hand back partial output.
      const grace = delay(opts.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS);
      outcome = (await Promise.race([running, grace.promise])) ?? { settled: undefined, interrupted: true };
      grace.cancel();
    }
    const { settled, interrupted } = outcome;
    const cancelled = interrupted && ctx.signal.aborted;
    return { settled, cancelled, timedOut: interrupted && !cancelled && timed.timedOut(), timeoutMs };
  } finally {
    timed.dispose();
    aborted.dispose();
  }
}

function partialOutput(settled: Settled | undefined): string {
  if (!settled?.ok) return '';
  const { output } = normalizeReturn(settled.value);
  return output.length > 0 ? `\n${output}` : '';
}

/**
 * What stopped a call, when it was not the user: the turn's signal carries a
 * `TurnStopped` (agent/stop.ts) when Tea stopped the turn itself, e.g. at its
 * deadline (agent.turn_timeout_s). Its message says which, in the user's words.
 */
function stoppedBy(signal: AbortSignal): string | undefined {
  const why: unknown = signal.reason;
  if (!(why instanceof Error) || why.name !== 'TurnStopped') return undefined;
  return `${why.message.charAt(0).toLowerCase()}${why.message.slice(1)}`;
}

/** "cancelled by the user", or "stopped: the turn ran past its deadline of …". */
function stopped(signal: AbortSignal): string {
  const by = stoppedBy(signal);
  return by ? `stopped: ${by}` : 'cancelled by the user';
}

/** Validates and runs one tool call. Never throws; every failure becomes an `[ERROR]` result. */
export async function runTool(
  registry: ToolRegistry,
  call: ToolCallPart,
  ctx: ToolContext,
  opts: RunToolOptions = {},
): Promise<ToolRunResult> {
  const maxChars = opts.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  let untruncated: Untruncated;
  try {
    // Tools that list tools (tool_search) see the registry the call runs in: a session's overlay.
    untruncated = await runUntruncated(registry, call, ctx.tools ? ctx : { ...ctx, tools: registry }, opts);
  } catch (error) {
    // Only a broken schema or registry gets here; still answer the model instead of crashing the loop.
    const { message, hint } = describeError(error);
    untruncated = errorResult(`${call.name} failed: ${message}`, hint);
  }
  const { savedOutput, ...result } = untruncated;
  if (savedOutput) return { ...result, output: pointToSaved(result.output, maxChars, savedOutput) };
  if (result.output.length <= maxChars) return result;
  return { ...result, output: await truncateToFile(result.output, maxChars, ctx) };
}

function savedNote(chars: number, file: string): string {
  return `\n[full output (${chars} chars) saved to ${file}; read_file it with offset/limit to see the omitted part]`;
}

/** Cuts a long output head+tail and, when the context has an output dir, saves the full text there. */
async function truncateToFile(output: string, maxChars: number, ctx: ToolContext): Promise<string> {
  if (!ctx.outputDir) return truncateHeadTail(output, maxChars);
  const file = savedOutputPath(ctx.outputDir, ctx.callId);
  try {
    // Loaded here, not at start: node:fs/promises is ~2 ms a run without long outputs need not pay.
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(ctx.outputDir, { recursive: true });
    await writeFile(file, output);
  } catch {
    return truncateHeadTail(output, maxChars);
  }
  const note = savedNote(output.length, file);
  return truncateHeadTail(output, maxChars - note.length) + note;
}

const bytesText = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${bytes} bytes`;

/** The tool saved its whole output itself: cut what it returned and say where the rest is. */
function pointToSaved(output: string, maxChars: number, saved: SavedOutput): string {
  const note = saved.complete
    ? savedNote(saved.chars, saved.path)
    : `\n[the first ${bytesText(saved.bytes)} of the output (of ${saved.chars} chars; saving stopped at its size limit) saved to ${saved.path}; read_file it with offset/limit; the end of the output is shown above]`;
  return truncateHeadTail(output, Math.max(0, maxChars - note.length)) + note;
}

/** What to say when no tool's name is like the unknown one: how many there are, and a few of them. */
function noCloseTool(names: readonly string[]): string {
  if (names.length === 0) return ' No tools are available.';
  const few = [...names].sort().slice(0, 8);
  const more = names.length > few.length ? `, … (${names.length} in all)` : '';
  return ` No tool has a similar name; the tools are: ${few.join(', ')}${more}.`;
}

async function runUntruncated(
  registry: ToolRegistry,
  call: ToolCallPart,
  ctx: ToolContext,
  opts: RunToolOptions,
): Promise<Untruncated> {
  const info = registry.get(call.name);
  const specHint = (): string =>
    info ? `expected parameters: ${summarizeParameters(registry.specs([info.name])[0]!)}` : '';

  if (call.argsError !== undefined) {
    const expected = info ? `; ${specHint()}` : '';
    return errorResult(
      `Invalid JSON arguments for ${call.name}: ${call.argsError}`,
      `resend the call with arguments as one valid JSON object matching the tool's schema${expected}`,
    );
  }
  if (!info) {
    const near = registry.similar(call.name);
    const suggestion = near.length > 0 ? ` Did you mean: ${near.join(', ')}?` : noCloseTool(registry.names());
    return errorResult(
      `Unknown tool "${call.name}".${suggestion}`,
      'call one of the listed tools by its exact name',
    );
  }

  // Validation, the permission check and the run all need the tool itself: its code loads here.
  let tool: Tool;
  try {
    tool = (await registry.load(info.name))!;
  } catch (error) {
    // The message names the tool (`the tool "read_file" could not be loaded: …`).
    return errorResult(describeError(error).message, HINTS.notLoaded);
  }

  const parsed = await tool.parameters.safeParseAsync(call.args ?? {});
  if (!parsed.success) {
    return errorResult(
      `Invalid arguments for ${tool.name}: ${formatIssues(parsed.error.issues)}`,
      specHint(),
    );
  }

  if (opts.authorize) {
    const verdict = await opts.authorize(tool, parsed.data, ctx);
    if (!verdict.allowed) return { output: verdict.output, isError: true, status: verdict.status };
  }

  if (ctx.signal.aborted) {
    const by = stoppedBy(ctx.signal);
    return {
      output: by
        ? `[CANCELLED] ${tool.name} did not start: ${by}`
        : `[CANCELLED] ${tool.name} was cancelled before it started`,
      isError: true,
      status: 'cancelled',
    };
  }

  opts.onStart?.();
  const run = await execute(tool, parsed.data, ctx, opts);
  if (run.cancelled) {
    return {
      output: `[CANCELLED] ${tool.name} was ${stopped(ctx.signal)}${partialOutput(run.settled)}`,
      isError: true,
      status: 'cancelled',
      ...savedOf(run.settled),
    };
  }
  if (run.timedOut) {
    const partial = partialOutput(run.settled);
    return {
      output: `${formatError(`${tool.name} timed out after ${formatSeconds(run.timeoutMs)}`, HINTS.timeout)}${partial}`,
      isError: true,
      status: 'error',
      ...savedOf(run.settled),
    };
  }
  const settled = run.settled;
  if (settled === undefined) return errorResult(`${tool.name} stopped without a result`);
  if (!settled.ok) {
    const { message, hint } = describeError(settled.error);
    return errorResult(message, hint);
  }
  const value = normalizeReturn(settled.value);
  const output =
    value.isError && !value.output.startsWith('[ERROR]') ? `[ERROR] ${value.output}` : value.output;
  const result: Untruncated = { output, isError: value.isError, status: value.isError ? 'error' : 'ok' };
  if (value.images) result.images = value.images;
  if (value.audio) result.audio = value.audio;
  if (value.resources) result.resources = value.resources;
  if (value.savedOutput) result.savedOutput = value.savedOutput;
  return result;
}

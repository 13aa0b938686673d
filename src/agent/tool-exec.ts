import { screenToolImages } from '../llm/images.js';
import type { ImagePart, ToolCallPart, ToolResultPart } from '../llm/types.js';
import type { Store } from '../store/index.js';
import type { PermissionPolicy } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import { runTool } from '../tools/run.js';
import { Channel } from '../util/channel.js';
import { authorizeRun } from './approval.js';
import type { DoomLoopDetector } from './doom.js';
import type { AgentEvent, ToolStatus } from './events.js';
import { makeHost, type SessionServices } from './host.js';
import { TurnStopped } from './stop.js';

export interface ToolExecDeps {
  store: Store;
  tools: ToolRegistry;
  sessionId: string;
  turnId: string;
  cwd: string;
  allowedRoots?: string[];
  maxParallel: number;
  maxOutputChars?: number;
  signal: AbortSignal;
  /** True when the user has sent a steering message that should pre-empt the remaining calls. */
  steeringPending: () => boolean;
  doom: DoomLoopDetector;
  policy: PermissionPolicy;
  services: SessionServices;
  /** The tools whose schemas the model has now. */
  activeTools: () => string[];
  /** Where truncated outputs are saved in full. */
  outputDir?: string;
}

export interface ToolExecOutcome {
  /** One result per call, in the model's order. */
  results: ToolResultPart[];
  stop?: 'cancelled' | 'doom_loop';
  stopMessage?: string;
}

const SKIPPED = '[SKIPPED] The user sent a new message before this call ran; it was not executed.';
const CANCELLED = '[CANCELLED] The user cancelled the turn before this call ran.';

/** The result of a call the stopped turn never ran: the user cancelled it, or Tea stopped it (a deadline). */
function cancelledOutput(signal: AbortSignal): string {
  const why: unknown = signal.reason;
  if (why instanceof TurnStopped)
    return `[CANCELLED] This call did not run: ${why.message.charAt(0).toLowerCase()}${why.message.slice(1)}.`;
  return CANCELLED;
}

/**
 * Runs one model response's tool calls. Consecutive concurrency-safe calls run
 * together (at most `maxParallel` at once); every other call runs alone, in order.
 * Between serial steps it checks for cancellation and steering; every call gets
 * a stored result, so call/result pairs stay consistent whatever happens.
 */
export async function* executeToolCalls(
  deps: ToolExecDeps,
  calls: readonly ToolCallPart[],
): AsyncGenerator<AgentEvent, ToolExecOutcome> {
  const results: ToolResultPart[] = new Array(calls.length);
  let stop: ToolExecOutcome['stop'];
  let stopMessage: string | undefined;
  let i = 0;

  const settle = (from: number, status: ToolStatus, output: string): AgentEvent[] => {
    const events: AgentEvent[] = [];
    for (let k = from; k < calls.length; k++) {
      const call = calls[k]!;
      results[k] = record(deps, call, status, output, 0);
      events.push({ type: 'tool_finish', callId: call.id, name: call.name, status, output, durationMs: 0 });
    }
    return events;
  };

  while (i < calls.length) {
    if (deps.signal.aborted) {
      stop = 'cancelled';
      yield* settle(i, 'cancelled', cancelledOutput(deps.signal));
      break;
    }
    if (deps.steeringPending()) {
      yield* settle(i, 'skipped', SKIPPED);
      break;
    }
    const batch = nextBatch(deps, calls, i);
    const doomAt = batch.findIndex((call) => deps.doom.record(call));
    if (doomAt >= 0) {
      const runnable = batch.slice(0, doomAt);
      if (runnable.length > 0) yield* runBatch(deps, runnable, i, results);
      const call = batch[doomAt]!;
      stopMessage = `Stopped: the model called ${call.name} with the same arguments 3 times in a row. The task may not be complete; rephrase the request or give more detail.`;
      const output = `[ERROR] ${stopMessage}`;
      const k = i + doomAt;
      results[k] = record(deps, call, 'error', output, 0);
      yield { type: 'tool_finish', callId: call.id, name: call.name, status: 'error', output, durationMs: 0 };
      yield* settle(k + 1, 'skipped', '[SKIPPED] The turn stopped before this call ran.');
      stop = 'doom_loop';
      break;
    }
    yield* runBatch(deps, batch, i, results);
    i += batch.length;
  }
  return { results, stop, stopMessage };
}

/** The calls starting at `from` that may run together: a run of concurrency-safe calls, or one call. */
function nextBatch(deps: ToolExecDeps, calls: readonly ToolCallPart[], from: number): ToolCallPart[] {
  const first = calls[from]!;
  if (!isParallel(deps, first)) return [first];
  let end = from + 1;
  while (end < calls.length && isParallel(deps, calls[end]!)) end++;
  return calls.slice(from, end);
}

function isParallel(deps: ToolExecDeps, call: ToolCallPart): boolean {
  return call.argsError === undefined && deps.tools.get(call.name)?.concurrencySafe === true;
}

async function* runBatch(
  deps: ToolExecDeps,
  batch: readonly ToolCallPart[],
  offset: number,
  results: ToolResultPart[],
): AsyncGenerator<AgentEvent> {
  const events = new Channel<AgentEvent>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < batch.length) {
      const k = next++;
      results[offset + k] = await runOne(deps, batch[k]!, (e) => events.push(e));
    }
  };
  const width = Math.max(1, Math.min(deps.maxParallel, batch.length));
  const all = Promise.all(Array.from({ length: width }, worker)).finally(() => events.close());
  for await (const e of events) yield e;
  await all;
}

async function runOne(
  deps: ToolExecDeps,
  call: ToolCallPart,
  emit: (e: AgentEvent) => void,
): Promise<ToolResultPart> {
  emit({ type: 'tool_start', callId: call.id, name: call.name, args: call.args });
  startCall(deps, call);
  const started = performance.now();
  const signal = deps.signal;
  const r = await runTool(
    deps.tools,
    call,
    {
      cwd: deps.cwd,
      allowedRoots: deps.allowedRoots,
      sessionId: deps.sessionId,
      callId: call.id,
      signal,
      outputDir: deps.outputDir,
      host: makeHost(deps.services, { callId: call.id, signal, emit, activeTools: deps.activeTools }),
      ...(deps.services.fs ? { fs: deps.services.fs } : {}),
      permissions: deps.policy,
    },
    {
      maxOutputChars: deps.maxOutputChars,
      authorize: (tool, args, toolCtx) =>
        authorizeRun(tool, args, {
          where: { cwd: toolCtx.cwd, ...(toolCtx.allowedRoots ? { roots: toolCtx.allowedRoots } : {}) },
          policy: deps.policy,
          services: deps.services,
          callId: call.id,
          args: call.args,
          signal,
          emit,
        }),
    },
  );
  const durationMs = Math.round(performance.now() - started);
  // Images a model cannot take (too big, another type) stay out, the output says why.
  const { output, images } = screenToolImages(r.output, r.images);
  const result = persist(deps, call, r.status, output, durationMs, images);
  emit({
    type: 'tool_finish',
    callId: call.id,
    name: call.name,
    status: r.status,
    output,
    durationMs,
  });
  return result;
}

/** Stores a call that never ran (skipped, cancelled, doom loop) together with its result. */
function record(
  deps: ToolExecDeps,
  call: ToolCallPart,
  status: ToolStatus,
  output: string,
  durationMs: number,
): ToolResultPart {
  startCall(deps, call);
  return persist(deps, call, status, output, durationMs);
}

function startCall(deps: ToolExecDeps, call: ToolCallPart): void {
  deps.store.toolCalls.start(deps.sessionId, {
    callId: call.id,
    turnId: deps.turnId,
    name: call.name,
    args: call.args,
  });
}

function persist(
  deps: ToolExecDeps,
  call: ToolCallPart,
  status: ToolStatus,
  output: string,
  durationMs: number,
  images?: ImagePart[],
): ToolResultPart {
  const part: ToolResultPart = {
    type: 'tool-result',
    callId: call.id,
    name: call.name,
    output,
    isError: status !== 'ok',
    ...(images ? { images } : {}),
  };
  deps.store.messages.append(deps.sessionId, { turnId: deps.turnId, role: 'tool', parts: [part] });
  deps.store.toolCalls.finish(call.id, { status, output, durationMs }, deps.sessionId);
  return part;
}

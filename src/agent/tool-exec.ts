import { screenToolImages } from '../llm/images.js';
import type { ToolCallPart, ToolResultPart } from '../llm/types.js';
import { type ToolCallOutcome, type ToolCallRecord, toolContent } from '../store/tool-record.js';
import { toolKind, toolTitle } from '../tools/call-info.js';
import type { PermissionPolicy } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import { runTool, type ToolRunStatus } from '../tools/run.js';
import { Channel } from '../util/channel.js';
import { authorize } from './approval.js';
import type { DoomLoopDetector } from './doom.js';
import type { AgentEvent } from './events.js';
import { makeHost, type SessionServices } from './host.js';
import { resultPart, type TurnRecorder } from './record.js';
import { TurnStopped } from './stop.js';

export interface ToolExecDeps {
  /** Every transition of every call is recorded here before a face sees it. */
  recorder: TurnRecorder;
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

const OUTCOME: Record<ToolRunStatus, ToolCallOutcome> = {
  ok: 'completed',
  error: 'error',
  cancelled: 'cancelled',
  denied: 'denied',
};

/**
 * One call's record: each transition makes a new record (events already sent keep
 * theirs), records it, and tells the faces.
 */
class CallRecord {
  constructor(
    private readonly deps: ToolExecDeps,
    public current: ToolCallRecord,
  ) {}

  move(state: ToolCallRecord['state'], patch: Partial<ToolCallRecord> = {}): AgentEvent {
    this.current = { ...this.current, ...patch, state };
    this.deps.recorder.record({ type: 'tool_update', record: this.current });
    return { type: 'tool_update', record: this.current };
  }

  /** Ends a call that never ran (skipped, cancelled, stopped by the doom-loop guard). */
  end(state: ToolCallOutcome, output: string): AgentEvent {
    return this.move(state, { content: toolContent(output), finishedAt: Date.now() });
  }
}

/**
 * Runs one model response's tool calls. Every call is `pending` first; consecutive
 * concurrency-safe calls then run together (at most `maxParallel` at once); every
 * other call runs alone, in order. Between serial steps it checks for cancellation
 * and steering; every call ends with a recorded result, so call/result pairs stay
 * consistent whatever happens.
 */
export async function* executeToolCalls(
  deps: ToolExecDeps,
  calls: readonly ToolCallPart[],
): AsyncGenerator<AgentEvent, ToolExecOutcome> {
  const createdAt = Date.now();
  const records = calls.map((call) => new CallRecord(deps, pendingRecord(deps, call, createdAt)));
  for (const r of records) {
    deps.recorder.record({ type: 'tool_update', record: r.current });
    yield { type: 'tool_update', record: r.current };
  }
  let stop: ToolExecOutcome['stop'];
  let stopMessage: string | undefined;
  let i = 0;

  const settle = (from: number, state: ToolCallOutcome, output: string): AgentEvent[] =>
    records.slice(from).map((r) => r.end(state, output));

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
      if (doomAt > 0) yield* runBatch(deps, calls, records, i, doomAt);
      const k = i + doomAt;
      stopMessage = `Stopped: the model called ${calls[k]!.name} with the same arguments 3 times in a row. The task may not be complete; rephrase the request or give more detail.`;
      yield records[k]!.end('error', `[ERROR] ${stopMessage}`);
      yield* settle(k + 1, 'skipped', '[SKIPPED] The turn stopped before this call ran.');
      stop = 'doom_loop';
      break;
    }
    yield* runBatch(deps, calls, records, i, batch.length);
    i += batch.length;
  }
  return { results: records.map((r) => resultPart(r.current)), stop, stopMessage };
}

function pendingRecord(deps: ToolExecDeps, call: ToolCallPart, createdAt: number): ToolCallRecord {
  return {
    callId: call.id,
    turnId: deps.turnId,
    name: call.name,
    args: call.args,
    state: 'pending',
    title: toolTitle(deps.tools, call.name, call.args),
    kind: toolKind(deps.tools, call.name),
    content: [],
    createdAt,
  };
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

/** Runs the `count` calls from `offset` together, their events merged as they come. */
async function* runBatch(
  deps: ToolExecDeps,
  calls: readonly ToolCallPart[],
  records: readonly CallRecord[],
  offset: number,
  count: number,
): AsyncGenerator<AgentEvent> {
  const events = new Channel<AgentEvent>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const k = offset + next++;
      await runOne(deps, calls[k]!, records[k]!, (e) => events.push(e));
    }
  };
  const width = Math.max(1, Math.min(deps.maxParallel, count));
  const all = Promise.all(Array.from({ length: width }, worker)).finally(() => events.close());
  for await (const e of events) yield e;
  await all;
}

/**
 * One call from `pending` to its end: validated, authorised (`awaiting_approval`
 * while the user is asked), then `running` right before the tool executes.
 */
async function runOne(
  deps: ToolExecDeps,
  call: ToolCallPart,
  record: CallRecord,
  emit: (e: AgentEvent) => void,
): Promise<void> {
  const signal = deps.signal;
  let started = 0;
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
        authorize(tool, args, {
          where: { cwd: toolCtx.cwd, ...(toolCtx.allowedRoots ? { roots: toolCtx.allowedRoots } : {}) },
          policy: deps.policy,
          services: deps.services,
          callId: call.id,
          args: call.args,
          signal,
          // The policy asks the user: the call waits for the answer from here.
          emit: (e) => {
            if (e.type === 'approval_request') emit(record.move('awaiting_approval'));
            emit(e);
          },
        }),
      onStart: () => {
        started = performance.now();
        emit(record.move('running', { startedAt: Date.now() }));
      },
    },
  );
  const ran = record.current.startedAt !== undefined;
  // Images a model cannot take (too big, another type) stay out, the output says why.
  const { output, images } = screenToolImages(r.output, r.images);
  emit(
    record.move(OUTCOME[r.status], {
      content: toolContent(output, images),
      finishedAt: Date.now(),
      ...(ran ? { durationMs: Math.round(performance.now() - started) } : {}),
    }),
  );
}

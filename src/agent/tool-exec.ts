import { screenToolImages } from '../llm/images.js';
import type { ToolCallPart, ToolResultPart } from '../llm/types.js';
import { type ToolCallOutcome, type ToolCallRecord, toolContent } from '../store/tool-record.js';
import { loadForTitles, toolKind, toolTitle } from '../tools/call-info.js';
import { describeParts } from '../tools/result-parts.js';
import { runTool, type ToolRunStatus } from '../tools/run.js';
import { Channel } from '../util/channel.js';
import { monotonicMs } from '../util/monotonic.js';
import { authorize } from './approval.js';
import type { DoomLoopDetector } from './doom.js';
import type { AgentEvent } from './events.js';
import { makeHost } from './host.js';
import { withHostExtras } from './host-sample.js';
import { filesOf, mayChangeFiles } from './journal/turn.js';
import { resultPart, type TurnRecorder } from './record.js';
import { seated } from './seat.js';
import { TurnStopped } from './stop.js';
import type { Turn } from './turn.js';

/** What one model response's calls share besides the turn: its id, the doom-loop guard, the active tools. */
export interface ToolStep {
  turnId: string;
  doom: DoomLoopDetector;
  /** The tools whose schemas the model has now. */
  activeTools: () => string[];
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
    private readonly recorder: TurnRecorder,
    public current: ToolCallRecord,
  ) {}

  move(state: ToolCallRecord['state'], patch: Partial<ToolCallRecord> = {}): AgentEvent {
    this.current = { ...this.current, ...patch, state };
    this.recorder.record({ type: 'tool_update', record: this.current });
    return { type: 'tool_update', record: this.current };
  }

  /** Ends a call that never ran (skipped, cancelled, stopped by the doom-loop guard). */
  end(state: ToolCallOutcome, output: string): AgentEvent {
    return this.move(state, { content: toolContent(output), finishedAt: Date.now() });
  }
}

/**
 * Runs one model response's tool calls. Every call is `pending` first (`pending`
 * holds their records, stored with the response's message); consecutive
 * concurrency-safe calls then run together (at most `maxParallel` at once); every
 * other call runs alone, in order. Between serial steps it checks for cancellation
 * and steering; every call ends with a recorded result, so call/result pairs stay
 * consistent whatever happens.
 */
export async function* executeToolCalls(
  turn: Turn,
  step: ToolStep,
  calls: readonly ToolCallPart[],
  pending: readonly ToolCallRecord[],
): AsyncGenerator<AgentEvent, ToolExecOutcome> {
  const { state } = turn;
  const records = pending.map((record) => new CallRecord(state.recorder, record));
  for (const r of records) yield { type: 'tool_update', record: r.current };
  let stop: ToolExecOutcome['stop'];
  let stopMessage: string | undefined;
  let i = 0;

  const settle = (from: number, state: ToolCallOutcome, output: string): AgentEvent[] =>
    records.slice(from).map((r) => r.end(state, output));

  while (i < calls.length) {
    if (state.stop.aborted) {
      stop = 'cancelled';
      yield* settle(i, 'cancelled', cancelledOutput(state.signal));
      break;
    }
    if (state.steering.length > 0) {
      yield* settle(i, 'skipped', SKIPPED);
      break;
    }
    const batch = nextBatch(turn, calls, i);
    const doomAt = batch.findIndex((call) => step.doom.record(call));
    if (doomAt >= 0) {
      if (doomAt > 0) yield* runBatch(turn, step, calls, records, i, doomAt);
      const k = i + doomAt;
      stopMessage = `Stopped: the model called ${calls[k]!.name} with the same arguments 3 times in a row. The task may not be complete; rephrase the request or give more detail.`;
      yield records[k]!.end('error', `[ERROR] ${stopMessage}`);
      yield* settle(k + 1, 'skipped', '[SKIPPED] The turn stopped before this call ran.');
      stop = 'doom_loop';
      break;
    }
    yield* runBatch(turn, step, calls, records, i, batch.length);
    i += batch.length;
  }
  return { results: records.map((r) => resultPart(r.current)), stop, stopMessage };
}

/** The `pending` records of a model response's calls, in its order (recorded with its message). */
export async function pendingRecords(
  turn: Turn,
  turnId: string,
  calls: readonly ToolCallPart[],
): Promise<ToolCallRecord[]> {
  const { tools } = turn.services;
  // The calls' tools load first: a call's title (shown from `pending` on) names its subject.
  if (calls.some((c) => !tools.loaded(c.name))) {
    await loadForTitles(
      tools,
      calls.map((c) => c.name),
    );
  }
  const createdAt = Date.now();
  return calls.map((call) => pendingRecord(turn, turnId, call, createdAt));
}

function pendingRecord(turn: Turn, turnId: string, call: ToolCallPart, createdAt: number): ToolCallRecord {
  const { tools } = turn.services;
  return {
    callId: call.id,
    turnId,
    name: call.name,
    args: call.args,
    state: 'pending',
    title: toolTitle(tools, call.name, call.args),
    kind: toolKind(tools, call.name),
    content: [],
    createdAt,
  };
}

/** The calls starting at `from` that may run together: a run of concurrency-safe calls, or one call. */
function nextBatch(turn: Turn, calls: readonly ToolCallPart[], from: number): ToolCallPart[] {
  const first = calls[from]!;
  if (!isParallel(turn, first)) return [first];
  let end = from + 1;
  while (end < calls.length && isParallel(turn, calls[end]!)) end++;
  return calls.slice(from, end);
}

function isParallel(turn: Turn, call: ToolCallPart): boolean {
  return call.argsError === undefined && turn.services.tools.get(call.name)?.concurrencySafe === true;
}

/** Runs the `count` calls from `offset` together, their events merged as they come. */
async function* runBatch(
  turn: Turn,
  step: ToolStep,
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
      await runOne(turn, step, calls[k]!, records[k]!, (e) => events.push(e));
    }
  };
  const width = Math.max(1, Math.min(turn.settings.maxParallelTools, count));
  const all = Promise.all(Array.from({ length: width }, worker)).finally(() => events.close());
  for await (const e of events) yield e;
  await all;
}

/**
 * One call from `pending` to its end: validated, authorised (`awaiting_approval`
 * while the user is asked), then `running` right before the tool executes.
 */
async function runOne(
  turn: Turn,
  step: ToolStep,
  call: ToolCallPart,
  record: CallRecord,
  emit: (e: AgentEvent) => void,
): Promise<void> {
  const { services, settings, state } = turn;
  const { signal, host, policy } = state;
  const refused = state.refusal?.(call.name);
  if (refused !== undefined) {
    emit(record.move('error', { content: toolContent(refused), finishedAt: Date.now() }));
    return;
  }
  const span = state.trace.tool(call);
  let started = 0;
  if (state.round && mayChangeFiles(services.tools.get(call.name)))
    await state.round.beforeChange(filesOf(call.name, call.args, state.cwd));
  const r = await runTool(
    services.tools,
    call,
    {
      cwd: state.cwd,
      allowedRoots: state.roots,
      ...(state.readRoots?.length ? { readRoots: state.readRoots } : {}),
      sessionId: state.sessionId,
      callId: call.id,
      signal,
      outputDir: state.outputDir,
      host: seated(
        withHostExtras(makeHost(host, { callId: call.id, signal, emit, activeTools: step.activeTools }), {
          host,
          policy,
          provider: services.provider,
          callId: call.id,
          signal,
          emit,
          cwd: state.cwd,
          roots: state.roots,
        }),
        state,
        call.id,
        emit,
        span.context,
      ),
      ...(host.fs ? { fs: host.fs } : {}),
      ...(host.shell ? { shell: host.shell } : {}),
      permissions: policy,
    },
    {
      maxOutputChars: settings.maxOutputChars,
      authorize: (tool, args, toolCtx) =>
        authorize(tool, args, {
          where: { cwd: toolCtx.cwd, ...(toolCtx.allowedRoots ? { roots: toolCtx.allowedRoots } : {}) },
          policy,
          host,
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
        started = monotonicMs();
        emit(record.move('running', { startedAt: Date.now() }));
      },
    },
  );
  const ran = record.current.startedAt !== undefined;
  // Images a model cannot take (too big, another type) stay out, the output says why.
  // Audio and embedded resources read as notes and text (no wire takes them in a tool result).
  const { output, images } = screenToolImages(describeParts(r.output, r.audio, r.resources), r.images);
  span.end(r.status, output);
  emit(
    record.move(OUTCOME[r.status], {
      content: toolContent(output, images),
      finishedAt: Date.now(),
      ...(ran ? { durationMs: Math.round(monotonicMs() - started) } : {}),
    }),
  );
}

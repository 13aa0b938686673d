/**
 * Pieces of a session's prompt that stand on their own (session.ts stays readable):
 * opening its context, naming it on the cheap model, keeping queued messages a
 * cancelled turn never sent.
 */
import { formatInstructions, loadInstructions } from '../context/instructions.js';
import { titleFor } from '../context/summarize.js';
import type { Message, ToolCallPart } from '../llm/types.js';
import { randomUUID } from '../util/random-id.js';
import { cheapSummarizer, SessionContext } from './context.js';
import type { AgentEvent, StopReason } from './events.js';
import type { UsageMeter } from './record.js';
import type { SessionRecorder } from './recorder.js';
import type { AgentServices } from './services.js';
import { sessionState } from './session-state.js';
import type { AgentSettings } from './settings.js';

/** A session's context: its instruction files read once, summaries on the cheap model. */
export async function openContext(
  services: AgentServices,
  settings: AgentSettings,
  session: { id: string; cwd: string; system: string },
): Promise<SessionContext> {
  const { cwd } = session;
  const instructions = formatInstructions(await loadInstructions({ cwd, home: settings.home ?? '' }), {
    cwd,
  });
  return new SessionContext({
    store: services.store,
    sessionId: session.id,
    system: session.system,
    instructions,
    calibrator: services.calibrator,
    ...cheapSummarizer(services.cheapProvider),
  });
}

/** Names the session after its first message on the cheap model, without waiting. */
export function nameInBackground(
  services: AgentServices,
  settings: AgentSettings,
  context: SessionContext,
  job: {
    sessionId: string;
    input: string | undefined;
    onTitle?: (e: Extract<AgentEvent, { type: 'title' }>) => void;
  },
): void {
  const cheap = services.cheapProvider;
  const { input, sessionId } = job;
  if (!cheap || !settings.titles || input === undefined) return;
  context.track(
    titleFor(cheap, input, context.backgroundSignal).then((r) => {
      // A title the user gave meanwhile (or before) stays.
      const kept = sessionState(services.store, sessionId).get('title_kept') === true;
      if (!kept) services.store.sessions.update(sessionId, { title: r.text });
      context.recordUsage('background:title', cheap.info, r.usage);
      if (!kept) job.onTitle?.({ type: 'title', sessionId, title: r.text });
    }),
    'title',
  );
}

/** Messages queued but never sent (the turn was cancelled) are kept in the transcript. */
export async function saveLeftovers(
  rest: readonly string[],
  recorder: SessionRecorder,
  history: Message[],
): Promise<string | undefined> {
  if (rest.length === 0) return undefined;
  const turnId = `t_${randomUUID().slice(0, 12)}`;
  for (const text of rest) {
    const parts = [{ type: 'text' as const, text }];
    await recorder.record({ type: 'message', turnId, role: 'user', parts });
    history.push({ role: 'user', parts });
  }
  return `${rest.length} queued message(s) were saved to the session for the next turn.`;
}

/** The prompt's `done` event: its last turn's stop, queued messages saved, the usage of it all. */
export function doneEvent(
  sessionId: string,
  last: { reason: StopReason; text: string; message?: string; clientCalls?: ToolCallPart[] },
  leftover: string | undefined,
  usage: UsageMeter,
): Extract<AgentEvent, { type: 'done' }> {
  return {
    type: 'done',
    sessionId,
    reason: last.reason,
    text: last.text,
    message: leftover ? [last.message, leftover].filter(Boolean).join(' ') : last.message,
    usage: { ...usage.total },
    costUsd: usage.costUsd,
    ...(usage.subagents ? { subagents: structuredClone(usage.subagents) } : {}),
    ...(last.clientCalls ? { clientCalls: last.clientCalls } : {}),
  };
}

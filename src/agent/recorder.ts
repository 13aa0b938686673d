/**
 * The one writer of a session's turns: turns the loop's record events into store
 * writes. User messages are appended (a pasted megabyte a piece at a time); the
 * streaming assistant message is checkpointed by a `DraftWriter` and finished, with
 * its model call's usage and the rows of the tool calls it asks for, in one
 * transaction; each later tool-call transition updates its row, and an ended call's
 * result is appended in the same transaction as its row.
 */
import type { Store } from '../store/index.js';
import { isFinished, type ToolCallRecord } from '../store/tool-record.js';
import { DRAFT_INTERVAL_MS, DraftWriter } from './draft.js';
import { type RecordEvent, resultPart, type TurnRecorder, usageRow } from './record.js';
import { sessionState } from './session-state.js';

type StepRecord = Extract<RecordEvent, { type: 'step' }>;

export class SessionRecorder implements TurnRecorder {
  /** The assistant message being streamed, once its first content arrived. */
  private draft: DraftWriter | undefined;
  /** A model call's usage, its message and its calls' records: one transaction (made once, used each step). */
  private readonly writeStep;
  /** An ended call's result in the transcript and its record: one transaction. */
  private readonly writeEnd;

  constructor(
    private readonly store: Store,
    private readonly sessionId: string,
    private readonly draftIntervalMs = DRAFT_INTERVAL_MS,
  ) {
    this.writeStep = store.db.transaction((e: StepRecord, draft: DraftWriter) => {
      for (const u of e.usage) store.usage.record(usageRow(sessionId, e.turnId, u));
      draft.finish(e.parts, e.status);
      for (const r of e.calls) store.toolCalls.save(sessionId, r);
    });
    this.writeEnd = store.db.transaction((r: ToolCallRecord) => {
      store.messages.appendInTransaction(sessionId, {
        turnId: r.turnId,
        role: 'tool',
        parts: [resultPart(r)],
      });
      store.toolCalls.save(sessionId, r);
    });
  }

  record(e: RecordEvent): void | Promise<void> {
    const { store, sessionId } = this;
    switch (e.type) {
      case 'message':
        return store.messages
          .appendYielding(sessionId, { turnId: e.turnId, role: e.role, parts: e.parts })
          .then(() => undefined);
      case 'draft':
        this.draft ??= new DraftWriter(store, sessionId, e.turnId, this.draftIntervalMs);
        this.draft.update(e.parts);
        return;
      case 'step': {
        const draft = this.draft ?? new DraftWriter(store, sessionId, e.turnId, this.draftIntervalMs);
        this.draft = undefined;
        this.writeStep(e, draft);
        return;
      }
      case 'tool_update': {
        const r = e.record;
        if (isFinished(r.state)) this.writeEnd(r);
        else store.toolCalls.save(sessionId, r);
        return;
      }
      case 'client_calls':
        if (e.awaiting) sessionState(store, sessionId).set('client_calls', e.awaiting);
        else sessionState(store, sessionId).delete('client_calls');
        return;
    }
  }
}

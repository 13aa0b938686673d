/**
 * The after-prompt experience job: evaluate the prompt that just ended (no model call),
 * let the user's words revise the previous prompt's evaluation (a complaint makes it a
 * failure), then, on the cheap model, write a lesson from a failure and draft a skill
 * from a success with a non-trivial plan. Each part fails on its own: a failure is noted
 * in the evaluation's signals (`jobErrors`) and the rest still runs. The lesson and
 * draft modules load only when one is due (a prompt that needs neither loads no memory
 * module and reads no skills folder).
 */
import type { HookContext, PromptRecord } from '../../agent/evolve-hooks.js';
import type { Message } from '../../llm/types.js';
import type { SignalsJson, Store, TaskEvaluationRow } from '../../store/index.js';
import { classifyReaction } from './reaction.js';
import { nonTrivialPlan, outcomeOf, readSignals, type TaskSignals } from './signals.js';
import type { ExperienceDeps, ExperienceReport, StoredSignals } from './types.js';

export type { ExperienceDeps, ExperienceReport, ExperienceSettings, StoredSignals } from './types.js';

const REACTION_TEXT = 160;

const signalsOf = (row: TaskEvaluationRow): StoredSignals => row.signals as unknown as StoredSignals;
const asJson = (s: StoredSignals): SignalsJson => s as unknown as SignalsJson;

/** Adds `patch` to the row's signals (read afresh: another part may have written since). */
function note(store: Store, id: number, patch: Partial<StoredSignals>): TaskEvaluationRow | undefined {
  const row = store.evaluations.get(id);
  if (!row) return undefined;
  const current = signalsOf(row);
  const jobErrors = [...(current.jobErrors ?? []), ...(patch.jobErrors ?? [])];
  return store.evaluations.setSignals(
    id,
    asJson({ ...current, ...patch, ...(jobErrors.length > 0 ? { jobErrors } : {}) }),
  );
}

function failure(store: Store, id: number, job: string, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  try {
    note(store, id, { jobErrors: [`${job}: ${message.slice(0, 300)}`] });
  } catch {
    // The store is closed (the face is exiting): nothing to note it in.
  }
}

/** Why a task counts as failed, in a few words, for the lesson prompt. */
export function whyFailed(s: TaskSignals): string {
  if (s.reason !== 'completed') return `the run stopped early (${s.reason})`;
  const lastTest = s.tests.at(-1);
  if (lastTest && !lastTest.passed) return `the last test run failed: ${lastTest.command}`;
  return `the final answer gives up after ${s.errors} tool error(s)${s.lastError ? `; the last: ${s.lastError.tool}: ${s.lastError.message}` : ''}`;
}

/** The messages of the prompt starting at `seq` and ending before `endSeq`, from the store. */
function storedPrompt(store: Store, sessionId: string, seq: number, endSeq: number): Message[] {
  return store.messages
    .list(sessionId, { afterSeq: seq - 1, limit: Math.max(1, endSeq - seq) })
    .map((m) => ({ role: m.role, parts: m.parts }));
}

function finalTextOf(messages: readonly Message[]): string {
  const last = messages.findLast((m) => m.role === 'assistant' && m.parts.some((p) => p.type === 'text'));
  return last?.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n') ?? '';
}

/**
 * The user's words in this prompt react to the previous answer: a complaint revises that
 * evaluation to failed (and asks for its lesson), praise is noted as a confirmation.
 * Returns the revised row when the outcome changed.
 */
async function react(
  deps: ExperienceDeps,
  record: PromptRecord,
  seq: number,
  ctx: HookContext,
): Promise<TaskEvaluationRow | undefined> {
  if (record.previousInput === undefined) return undefined;
  const { store } = deps;
  const previous = store.evaluations.previous(record.sessionId, seq);
  // Only the prompt just before (its evaluation may be missing: a killed process).
  if (!previous || !record.previousInput.startsWith(previous.input)) return undefined;
  const kind = classifyReaction(record.input);
  if (kind === 'neutral') return undefined;
  const reaction = { kind, text: record.input.slice(0, REACTION_TEXT) };
  if (kind === 'positive' || previous.outcome === 'failed') {
    note(store, previous.id, { reaction });
    return undefined;
  }
  const signals = signalsOf(previous);
  const revised = store.evaluations.revise(
    previous.id,
    'failed',
    asJson({ ...signals, reaction, revisedFrom: previous.outcome }),
  );
  if (signals.draft !== undefined) {
    // A draft from a task the user says went wrong should not wait in the inbox.
    const { withdrawDraft } = await import('./draft-job.js');
    await withdrawDraft(deps.home, signals.draft, record.sessionId).catch((err: unknown) =>
      failure(store, previous.id, 'withdraw draft', err),
    );
  }
  if (deps.settings.lessons && ctx.cheap && previous.lessonMemoryId === undefined && !ctx.signal.aborted) {
    const messages = storedPrompt(store, record.sessionId, previous.seq, seq);
    const { lessonFor } = await import('./lesson-job.js');
    await lessonFor(deps, ctx, revised, {
      cwd: record.cwd,
      task: {
        input: record.previousInput,
        messages,
        finalText: finalTextOf(messages),
        why: "the user's next message said it went wrong",
        complaint: record.input,
      },
    }).catch((err: unknown) => failure(store, previous.id, 'lesson', err));
  }
  return store.evaluations.get(previous.id);
}

/** The whole job for one finished prompt; `seq` is the seq of its first message. */
export async function runExperience(
  deps: ExperienceDeps,
  record: PromptRecord,
  seq: number,
  ctx: HookContext,
): Promise<ExperienceReport> {
  const { store } = deps;
  const session = store.sessions.get(record.sessionId);
  if (!session) return { skipped: 'the session is gone' };
  // The session does not call the hook for these; a second guard costs one look-up.
  if (session.parentId !== undefined || session.role !== undefined)
    return { skipped: "a sub-agent's session" };
  const report: ExperienceReport = {};
  const revised = await react(deps, record, seq, ctx).catch(() => undefined);
  if (revised) report.previous = revised;

  const signals = readSignals(record.messages, record.reason, record.text);
  const outcome = outcomeOf(signals);
  const row = store.evaluations.add({
    sessionId: record.sessionId,
    seq,
    input: record.input,
    outcome,
    signals: asJson(signals),
  });
  report.evaluation = row;
  if (ctx.signal.aborted || !ctx.cheap) return report;

  // A failed model (or the turn's deadline) teaches nothing about the task, and the cheap
  // model likely fails too: a face would wait on it for nothing (memory extraction skips it too).
  if (
    outcome === 'failed' &&
    signals.reason !== 'error' &&
    deps.settings.lessons &&
    row.lessonMemoryId === undefined
  ) {
    const { lessonFor } = await import('./lesson-job.js');
    await lessonFor(deps, ctx, row, {
      cwd: record.cwd,
      task: {
        input: record.input,
        messages: record.messages,
        finalText: record.text,
        why: whyFailed(signals),
      },
    }).catch((err: unknown) => failure(store, row.id, 'lesson', err));
  }
  if (outcome === 'succeeded' && deps.settings.drafts && signals.skills.length === 0) {
    if (nonTrivialPlan(signals, record.messages)) {
      const { draftFor } = await import('./draft-job.js');
      report.draft = await draftFor(deps, ctx, row, record).catch((err: unknown) => {
        failure(store, row.id, 'draft', err);
        return { skipped: 'failed' };
      });
    }
  }
  report.evaluation = store.evaluations.get(row.id) ?? row;
  return report;
}

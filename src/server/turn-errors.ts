/**
 * The errors of a turn that ended without an answer, as the OpenAI faces (chat
 * completions, the Responses API) give them to clients: the model failed, or the turn was
 * cancelled. Each says whether a client's retry could help (`x-should-retry`).
 */
import type { AgentEvent } from '../agent/events.js';
import { type ApiError, apiError } from './errors.js';

type ErrorEvent = Extract<AgentEvent, { type: 'error' }>;
type Done = Extract<AgentEvent, { type: 'done' }>;

/**
 * Prompts refused before any model call (agent/rules/): a rule used wrongly or naming
 * no tool is the request's mistake; no model configured is the server's state.
 */
export const REFUSALS: Record<string, 400 | 422 | 503> = {
  rule_usage: 400,
  rule_unknown_tool: 400,
  no_model: 503,
  // The final answer did not match the response format, repair round included.
  response_format_unmet: 422,
};

/** What failed inside the server itself (an exception while the turn's events were read). */
export const INTERNAL = 'internal';

/**
 * The error of a turn that ended without an answer, from its first error event and its
 * `done`, the same whole (thrown) and streamed (its body): a refusal, a cancel, a bug in
 * Tea, or the model's failure. `formatParam` is the face's response-format parameter,
 * which an answer that missed the format names.
 */
export function turnFailure(
  error: ErrorEvent | undefined,
  done: Done | undefined,
  sessionId: string,
  formatParam: string,
): ApiError {
  const refused = error && REFUSALS[error.kind];
  if (refused) {
    const param = error.kind === 'response_format_unmet' ? formatParam : null;
    return apiError(refused, error.message, { code: error.kind, param });
  }
  if (done?.reason === 'cancelled') return turnCancelled(sessionId);
  if (error?.kind === INTERNAL) return apiError(500, error.message, { code: 'server_error' });
  return modelFailed({ ...error, message: error?.message ?? done?.message });
}

/** Whether the turn ended with an answer (not failed, not cancelled). */
export function answered(done: Done | undefined): done is Done {
  return done !== undefined && done.reason !== 'error' && done.reason !== 'cancelled';
}

/** The model rejected the request: a 4xx other than 408, 409 and 429 (a bad key, an unknown model, a context too long). */
function modelRejected(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && ![408, 409, 429].includes(status);
}

/**
 * The error for a turn the model failed (`model_error`): a 400 when the model rejected
 * the request, a 429 when it still rate-limited Tea after its retries, a 503 while calls to
 * it are paused (its circuit breaker is open), else a 500. Always with
 * `x-should-retry: false`: Tea has already retried the model itself, and each retry of
 * the client's would be a new turn failing the same way.
 */
function modelFailed(error: { message?: string; status?: number; kind?: string } | undefined): ApiError {
  const s = error?.status;
  const status = modelRejected(s) ? 400 : s === 429 ? 429 : error?.kind === 'circuit-open' ? 503 : 500;
  return apiError(status, `the model failed: ${error?.message ?? 'no answer'}`, {
    code: 'model_error',
    headers: { 'x-should-retry': 'false' },
  });
}

/**
 * The error for a turn cancelled through the session API (`POST /v1/sessions/{id}/cancel`):
 * a 400 (with `x-should-retry: false`), because a retry would run the turn the user stopped
 * again, and 400 is what none of the official clients retries (the AI SDK retries a 409
 * whatever the header says).
 */
export function turnCancelled(sessionId: string): ApiError {
  return apiError(
    400,
    `the turn was cancelled (POST /v1/sessions/${sessionId}/cancel) before it finished: there is no answer; what it did so far is in session ${sessionId}`,
    { code: 'turn_cancelled', headers: { 'x-should-retry': 'false' } },
  );
}

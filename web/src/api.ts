/** A small typed client for the Tea HTTP API (bearer token, OpenAI-shaped errors). */

import type { DraftDetail, DraftItem, SkillDetail, SkillList } from './skill-types.js';
import { REFUSED, type TokenProblem } from './token.js';
import type {
  ApprovalDecision,
  ConfigView,
  ImageInput,
  ListOf,
  Memory,
  MemoryHit,
  ModelEntry,
  RememberResult,
  RestoreResult,
  Session,
  StoredMessage,
  SubagentSummary,
  WorkModeInfo,
} from './types.js';
import type { Checkpoint, RunDetails, RunSummary, WorkflowDef } from './workflow-types.js';

/** An error the server reported (or a network failure, with status 0). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface ErrorBody {
  error?: { message?: string; code?: string | null };
}

export class Api {
  /**
   * Called when the server refuses a request for its token (401): resolves with a
   * token it accepts (the token prompt), after which the request is sent again.
   */
  onUnauthorized: ((problem: TokenProblem) => Promise<string>) | null = null;
  private asking: Promise<void> | null = null;

  constructor(
    readonly base: string,
    public token: string | null,
  ) {}

  /** Gets a new token through `onUnauthorized`, once for all the requests that were refused meanwhile. */
  reauthorize(problem: TokenProblem): Promise<void> {
    const ask = this.onUnauthorized;
    if (!ask) return Promise.reject(new ApiError('the server needs an API token', 401, 'missing_api_key'));
    this.asking ??= ask(problem).then((token) => {
      this.token = token;
      this.asking = null;
    });
    return this.asking;
  }

  /**
   * Every request names the client: the server takes approvals and answers only with
   * this header, which a page of another site cannot send (it needs a CORS preflight).
   */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { 'x-tea-client': 'web', ...extra };
    if (this.token) h.authorization = `Bearer ${this.token}`;
    return h;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  /** Sends a request and returns the raw response, throwing `ApiError` on 4xx/5xx. */
  async raw(method: string, path: string, body?: unknown): Promise<Response> {
    let res: Response;
    for (let tries = 0; ; tries++) {
      const used = this.token;
      res = await this.send(method, path, body);
      if (res.status !== 401 || !this.onUnauthorized || tries >= 3) break;
      // The token was refused: ask for the right one (one prompt for every request
      // refused meanwhile; none when another request already got a new one), then send again.
      if (this.token === used) await this.reauthorize(used ? 'invalid' : 'missing');
      else if (this.asking) await this.asking;
    }
    if (!res.ok) {
      let message = `${method} ${path} failed with HTTP ${res.status}`;
      let code: string | null = null;
      try {
        const parsed = (await res.json()) as ErrorBody;
        if (parsed.error?.message) message = parsed.error.message;
        code = parsed.error?.code ?? null;
      } catch {
        // not JSON: keep the generic message
      }
      throw new ApiError(message, res.status, code);
    }
    return res;
  }

  private async send(method: string, path: string, body: unknown): Promise<Response> {
    try {
      return await fetch(this.url(path), {
        method,
        headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ApiError(`Cannot reach the server: ${(err as Error).message}`, 0, 'network');
    }
  }

  /** Whether the server accepts `token`: null when it does, else why not (in words). */
  async checkToken(token: string): Promise<string | null> {
    try {
      const res = await fetch(this.url('/v1/config'), {
        headers: { ...this.headers(), authorization: `Bearer ${token}` },
      });
      if (res.ok) return null;
      return res.status === 401 ? REFUSED : `The server answered HTTP ${res.status}; try again.`;
    } catch (err) {
      return `Cannot reach the server: ${(err as Error).message}`;
    }
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, path, body);
    return (await res.json()) as T;
  }

  listSessions(q = '', limit = 100): Promise<ListOf<Session>> {
    const params = new URLSearchParams({ limit: String(limit) });
    if (q) params.set('q', q);
    return this.json('GET', `/v1/sessions?${params}`);
  }

  createSession(title?: string): Promise<Session> {
    return this.json('POST', '/v1/sessions', title ? { title } : {});
  }

  getSession(id: string): Promise<Session> {
    return this.json('GET', `/v1/sessions/${enc(id)}`);
  }

  /** The work modes, in cycling order, and the one new sessions start in. */
  modes(): Promise<{ data: WorkModeInfo[]; default: string }> {
    return this.json('GET', '/v1/modes');
  }

  /** Switches a session's work mode (and so its permission mode). */
  setWorkMode(id: string, mode: string): Promise<Session> {
    return this.json('PATCH', `/v1/sessions/${enc(id)}`, { work_mode: mode });
  }

  renameSession(id: string, title: string): Promise<Session> {
    return this.json('PATCH', `/v1/sessions/${enc(id)}`, { title });
  }

  deleteSession(id: string, force = false): Promise<{ id: string; deleted: boolean }> {
    return this.json('DELETE', `/v1/sessions/${enc(id)}${force ? '?force=true' : ''}`);
  }

  messages(id: string): Promise<ListOf<StoredMessage>> {
    return this.json('GET', `/v1/sessions/${enc(id)}/messages`);
  }

  /** The session's sub-agents, oldest first. */
  children(id: string): Promise<ListOf<SubagentSummary>> {
    return this.json('GET', `/v1/sessions/${enc(id)}/children`);
  }

  prompt(
    id: string,
    input: string,
    images: ImageInput[],
    mode: 'prompt' | 'steer' | 'follow_up' = 'prompt',
  ): Promise<{ session_id: string; turn: 'started' | 'queued' }> {
    const body: Record<string, unknown> = { input, mode };
    if (images.length > 0) body.images = images;
    return this.json('POST', `/v1/sessions/${enc(id)}/prompt`, body);
  }

  /** Runs the session's last message again after its turn failed (the message is not stored twice). */
  retry(id: string): Promise<{ session_id: string; turn: 'started' }> {
    return this.json('POST', `/v1/sessions/${enc(id)}/retry`, {});
  }

  cancel(id: string): Promise<{ cancelled: boolean }> {
    return this.json('POST', `/v1/sessions/${enc(id)}/cancel`, {});
  }

  approve(id: string, requestId: string, decision: ApprovalDecision): Promise<{ ok: boolean }> {
    return this.json('POST', `/v1/sessions/${enc(id)}/approvals/${enc(requestId)}`, { decision });
  }

  answer(id: string, requestId: string, text: string): Promise<{ ok: boolean }> {
    return this.json('POST', `/v1/sessions/${enc(id)}/answers/${enc(requestId)}`, { text });
  }

  listMemory(limit = 100): Promise<ListOf<Memory>> {
    return this.json('GET', `/v1/memory?limit=${limit}`);
  }

  /** Relevant memories with 0–1 scores, versions of one fact folded under the one that answers. */
  searchMemory(q: string, limit = 50): Promise<ListOf<MemoryHit>> {
    return this.json('GET', `/v1/memory/search?${new URLSearchParams({ q, limit: String(limit) })}`);
  }

  addMemory(content: string, category?: string): Promise<RememberResult> {
    return this.json('POST', '/v1/memory', category ? { content, category } : { content });
  }

  /** Every version of the fact memory `id` belongs to, newest first. */
  memoryHistory(id: number): Promise<ListOf<Memory>> {
    return this.json('GET', `/v1/memory/${id}/history`);
  }

  /** Reactivates an old version; `replace` makes its statement the current version again (a new version from now). */
  restoreMemory(id: number, replace = false): Promise<RestoreResult> {
    return this.json('POST', `/v1/memory/${id}/restore`, replace ? { replace: true } : {});
  }

  pinMemory(id: number, pinned: boolean): Promise<unknown> {
    return this.json('POST', `/v1/memory/${id}/pin`, { pinned });
  }

  deleteMemory(id: number): Promise<unknown> {
    return this.json('DELETE', `/v1/memory/${id}`);
  }

  config(): Promise<ConfigView> {
    return this.json('GET', '/v1/config');
  }

  /** The model profiles with their model ids (`tea` names the active one). */
  models(): Promise<ListOf<ModelEntry>> {
    return this.json('GET', '/v1/models');
  }

  switchProfile(profile: string): Promise<{ active_profile: string }> {
    return this.json('POST', '/v1/config/switch', { profile });
  }

  /** The workflows there are (the project's, the user's, the built-in ones), with their inputs. */
  listWorkflows(): Promise<ListOf<WorkflowDef>> {
    return this.json('GET', '/v1/workflows');
  }

  /** Starts a run of a workflow; it runs in the server. */
  startWorkflow(name: string, input: Record<string, unknown>): Promise<RunDetails> {
    return this.json('POST', `/v1/workflows/${enc(name)}/runs`, { input });
  }

  listRuns(limit = 30): Promise<ListOf<RunSummary>> {
    return this.json('GET', `/v1/workflow-runs?limit=${limit}`);
  }

  getRun(id: string): Promise<RunDetails> {
    return this.json('GET', `/v1/workflow-runs/${enc(id)}`);
  }

  runHistory(id: string): Promise<ListOf<Checkpoint>> {
    return this.json('GET', `/v1/workflow-runs/${enc(id)}/history`);
  }

  /** Goes on with a run; `decision` answers the approval at `node` (or every one it waits for). */
  resumeRun(id: string, decision?: 'approve' | 'reject', node?: string): Promise<RunDetails> {
    const body: Record<string, string> = {};
    if (decision) body.decision = decision;
    if (decision && node) body.node = node;
    return this.json('POST', `/v1/workflow-runs/${enc(id)}/resume`, body);
  }

  cancelRun(id: string): Promise<{ id: string; result: 'cancelled' | 'requested' | 'finished' }> {
    return this.json('POST', `/v1/workflow-runs/${enc(id)}/cancel`, {});
  }

  /** A new run from `id`'s checkpoints up to `checkpoint`, started at once. */
  forkRun(id: string, checkpoint: number): Promise<RunDetails> {
    return this.json('POST', `/v1/workflow-runs/${enc(id)}/fork`, { checkpoint });
  }

  /** The installed skills, the shadowed ones, their problems and the folders in precedence order. */
  listSkills(): Promise<SkillList> {
    return this.json('GET', '/v1/skills');
  }

  /** One skill with its instructions (a skill named `inbox` is asked for its own way: that path is the inbox). */
  getSkill(name: string): Promise<SkillDetail> {
    return this.json('GET', name === 'inbox' ? '/v1/skills/inbox?installed=true' : `/v1/skills/${enc(name)}`);
  }

  /** Deletes a skill's folder; `force` for one in another agent's folder. */
  deleteSkill(name: string, force = false): Promise<unknown> {
    return this.json('DELETE', `/v1/skills/${enc(name)}${force ? '?force=true' : ''}`);
  }

  listDrafts(): Promise<ListOf<DraftItem>> {
    return this.json('GET', '/v1/skills/inbox');
  }

  getDraft(name: string): Promise<DraftDetail> {
    return this.json('GET', `/v1/skills/inbox/${enc(name)}`);
  }

  /** Installs a draft; `force` replaces an installed skill of the same name. */
  acceptDraft(name: string, force = false): Promise<{ name: string; note: string | null }> {
    return this.json('POST', `/v1/skills/inbox/${enc(name)}/accept`, force ? { force: true } : {});
  }

  rejectDraft(name: string): Promise<unknown> {
    return this.json('POST', `/v1/skills/inbox/${enc(name)}/reject`, {});
  }

  /** Downloads an export of a session as a Blob, with the server's file name when it gives one. */
  async exportSession(sessionId: string, format: 'markdown' | 'pdf'): Promise<{ blob: Blob; name: string }> {
    const res = await this.raw('POST', '/v1/export', { session_id: sessionId, format });
    const blob = await res.blob();
    const disposition = res.headers.get('content-disposition') ?? '';
    const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
    const fallback = `tea-${sessionId}.${format === 'pdf' ? 'pdf' : 'md'}`;
    return { blob, name: match?.[1] ? decodeURIComponent(match[1]) : fallback };
  }
}

function enc(s: string): string {
  return encodeURIComponent(s);
}

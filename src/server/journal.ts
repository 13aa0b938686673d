/**
 * The operation journal over HTTP: a session's rounds (what each turn changed), undo
 * and redo of them, and a round's unified diff. A refused undo or redo changes nothing
 * and answers 409 with an OpenAI-style error: `journal_conflict` naming the files that
 * changed since (also in `files`), `session_busy` while a turn runs, `nothing_to_undo`
 * / `nothing_to_redo`, `journal_off`, `journal_unsafe_path`, `journal_damaged`.
 */
import * as z from 'zod';
import type { JournalService, RoundInfo, UndoResult } from '../runtime/journal.js';
import { ApiError, apiError } from './errors.js';
import { sessionNotFound } from './live.js';
import { type AppContext, doc } from './routes.js';
import { readQuery } from './validate.js';

const diffQuery = z.object({
  round: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, 'round must be a round id (a positive whole number)')
    .optional()
    .describe('The round (default: the newest that was not dropped)'),
});

const CODES: Record<Exclude<UndoResult, { ok: true }>['reason'], string> = {
  conflict: 'journal_conflict',
  busy: 'session_busy',
  nothing: 'nothing_to_undo',
  off: 'journal_off',
  unsafe: 'journal_unsafe_path',
  damaged: 'journal_damaged',
};

/** A 409 that also lists the conflicting files (the error body keeps OpenAI's shape plus `files`). */
class JournalRefused extends ApiError {
  constructor(
    message: string,
    code: string,
    readonly files: string[] | undefined,
  ) {
    super(409, message, 'invalid_request_error', null, code);
  }

  override toBody() {
    const body = super.toBody();
    return this.files ? { error: { ...body.error, files: this.files } } : body;
  }
}

function roundJson(r: RoundInfo) {
  return { id: r.id, turn_id: r.turnId, state: r.state, created_at: r.createdAt, files: r.files };
}

export function journalRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  const journal = (id: string): JournalService => {
    if (!deps.sessions.get(id)) throw sessionNotFound(id);
    if (!deps.journal) throw apiError(404, 'this server has no operation journal', { code: 'journal_off' });
    return deps.journal;
  };

  doc(ctx, {
    method: 'get',
    path: '/v1/sessions/:id/journal',
    summary: "The session's journal rounds (what each turn changed), oldest first",
    tag: 'sessions',
  });
  app.get('/v1/sessions/:id/journal', (c) => {
    const id = c.req.param('id');
    const j = journal(id);
    const off = j.off;
    return c.json({
      session_id: id,
      enabled: !off,
      ...(off ? { off_reason: off } : {}),
      rounds: j.rounds(id).map(roundJson),
    });
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/sessions/:id/journal/diff',
    summary: 'The unified diff of a round (default: the newest not dropped)',
    tag: 'sessions',
    query: diffQuery,
  });
  app.get('/v1/sessions/:id/journal/diff', async (c) => {
    const id = c.req.param('id');
    const q = readQuery(c, diffQuery);
    const diff = await journal(id).diff(id, q.round === undefined ? undefined : Number(q.round));
    if (!diff)
      throw apiError(404, `no such round in session ${id}`, { param: 'round', code: 'round_not_found' });
    return c.json({ session_id: id, round_id: diff.roundId, diff: diff.text });
  });

  for (const action of ['undo', 'redo'] as const) {
    doc(ctx, {
      method: 'post',
      path: `/v1/sessions/:id/${action}`,
      summary:
        action === 'undo'
          ? "Revert the session's last applied round; 409 journal_conflict naming files changed since, session_busy, nothing_to_undo"
          : "Re-apply the session's last undone round; 409 journal_conflict, session_busy, nothing_to_redo",
      tag: 'sessions',
    });
    app.post(`/v1/sessions/:id/${action}`, async (c) => {
      const id = c.req.param('id');
      const r = await journal(id)[action](id);
      if (!r.ok) {
        const code = r.reason === 'nothing' ? `nothing_to_${action}` : CODES[r.reason];
        throw new JournalRefused(r.message, code, r.files);
      }
      return c.json({ session_id: id, action, round_id: r.roundId, files: r.files, note: r.note });
    });
  }
}

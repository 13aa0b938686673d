/** `POST /v1/export`: a session as Markdown, or as a PDF (pdfkit, loaded only when asked). */
import * as z from 'zod';
import { transcriptMarkdown } from '../runtime/session-markdown.js';
import type { SessionsService } from '../runtime/sessions.js';
import { sessionNotFound } from './live.js';
import { type AppContext, doc } from './routes.js';
import { readJson } from './validate.js';

const exportBody = z.object({
  session_id: z.string().min(1),
  format: z.enum(['markdown', 'pdf']),
});

/** The session transcript as Markdown (404 for an unknown session). */
export function sessionMarkdown(sessions: SessionsService, sessionId: string): string {
  const row = sessions.get(sessionId);
  if (!row) throw sessionNotFound(sessionId);
  return transcriptMarkdown(row, sessions.messages(sessionId));
}

function fileName(title: string | null, ext: string): string {
  const base =
    (title ?? 'session')
      .replace(/[^\w.-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'session';
  return `${base}.${ext}`;
}

export function exportRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  doc(ctx, {
    method: 'post',
    path: '/v1/export',
    summary: 'Export a session as Markdown or PDF',
    tag: 'export',
    body: exportBody,
    produces: 'text/markdown | application/pdf',
  });
  app.post('/v1/export', async (c) => {
    const body = await readJson(c, exportBody);
    const markdown = sessionMarkdown(deps.sessions, body.session_id);
    const title = deps.sessions.get(body.session_id)?.title ?? null;
    if (body.format === 'markdown') {
      c.header('content-type', 'text/markdown; charset=utf-8');
      c.header('content-disposition', `attachment; filename="${fileName(title, 'md')}"`);
      return c.body(markdown);
    }
    const { markdownToPdf } = await import('./export-pdf.js');
    const pdf = await markdownToPdf(markdown);
    c.header('content-type', 'application/pdf');
    c.header('content-disposition', `attachment; filename="${fileName(title, 'pdf')}"`);
    return c.body(new Uint8Array(pdf));
  });
}

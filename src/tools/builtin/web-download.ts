/** download_file: save a URL into the workspace, streamed to a temp file and renamed when complete. */
import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as z from 'zod';
import { HINTS } from '../hints.js';
import { defineTool, type Tool, type ToolContext, ToolError } from '../types.js';
import { displayPath, resolvePath } from '../workspace.js';
import { formatSize } from './text.js';
import {
  parseHttpUrl,
  requestFollowing,
  statusLine,
  timeoutParam,
  urlParam,
  type WebSettings,
  webToolTimeout,
  withDeadline,
} from './web-http.js';

/** A safe file name from the URL's last path segment (`download` when it has none). */
export function fileNameFromUrl(url: URL): string {
  const segment =
    url.pathname
      .split('/')
      .filter((s) => s.length > 0)
      .at(-1) ?? '';
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    name = segment;
  }
  name = name.replace(/[/\\\0]/g, '_');
  return name === '' || name === '.' || name === '..' ? 'download' : name;
}

/** Where the file goes: the path itself, or the URL's file name inside it when it is a directory. */
async function destination(ctx: ToolContext, path: string, url: URL): Promise<string> {
  const abs = resolvePath(ctx, path, { write: true });
  const info = await stat(abs).catch(() => undefined);
  const isDir = info?.isDirectory() ?? /[/\\]$/.test(path);
  return isDir ? resolvePath(ctx, join(abs, fileNameFromUrl(url)), { write: true }) : abs;
}

async function refuseExisting(abs: string, shown: string): Promise<void> {
  const info = await stat(abs).catch(() => undefined);
  if (info === undefined) return;
  if (info.isDirectory()) throw new ToolError(`${shown} is a directory`, HINTS.EISDIR);
  throw new ToolError(`${shown} already exists`, 'pass overwrite=true to replace it, or choose another path');
}

function tooLarge(url: URL, max: number): ToolError {
  return new ToolError(
    `${url.href} is larger than the ${formatSize(max)} download limit; nothing was saved`,
    'download it with bash (curl -o) if the user agrees to a larger file',
  );
}

/** Streams the body into `temp`, stopping (and failing) past `max` bytes. Returns the size. */
async function saveBody(response: Response, temp: string, url: URL, max: number): Promise<number> {
  const file = await open(temp, 'wx');
  let size = 0;
  try {
    if (response.body === null) return 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return size;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => {});
        throw tooLarge(url, max);
      }
      await file.write(value);
    }
  } finally {
    await file.close();
  }
}

export function downloadFileTool(s: WebSettings): Tool {
  return defineTool({
    name: 'download_file',
    description:
      'Download a URL (http/https) and save it as a file in the workspace; a directory path keeps the ' +
      `URL's file name. Files over ${formatSize(s.maxFileBytes)} are refused; existing files need overwrite=true.`,
    parameters: z.object({
      url: urlParam,
      path: z.string().min(1).describe('Where to save it: a file path, or a directory inside the workspace'),
      overwrite: z.boolean().optional().describe('Replace an existing file (default false)'),
      timeout_ms: timeoutParam(s.timeoutMs),
    }),
    category: 'web',
    keywords: ['download', 'save', 'url', 'file', 'fetch', 'wget', 'curl', '下载', '保存'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'network',
    timeoutMs: webToolTimeout(s),
    subject: (a) => a.url,
    async execute(a, ctx) {
      const url = parseHttpUrl(a.url);
      const dest = await destination(ctx, a.path, url);
      const shown = displayPath(ctx, dest);
      if (!a.overwrite) await refuseExisting(dest, shown);
      await mkdir(dirname(dest), { recursive: true });
      const temp = join(dirname(dest), `.${basename(dest)}.${randomUUID().slice(0, 8)}.part`);
      try {
        const saved = await withDeadline(ctx.signal, a.timeout_ms ?? s.timeoutMs, url, async (signal) => {
          const fetched = await requestFollowing(url, { method: 'GET', headers: {} }, s, signal);
          const response = fetched.response;
          if (!response.ok) {
            await response.body?.cancel().catch(() => {});
            throw new ToolError(
              `Download failed: ${fetched.url.href} answered HTTP ${statusLine(response)}; nothing was saved`,
              'check the URL; web_fetch shows the error page',
            );
          }
          const declared = Number(response.headers.get('content-length') ?? Number.NaN);
          if (declared > s.maxFileBytes) {
            await response.body?.cancel().catch(() => {});
            throw tooLarge(url, s.maxFileBytes);
          }
          const size = await saveBody(response, temp, url, s.maxFileBytes);
          return { size, fetched };
        });
        if (!a.overwrite) await refuseExisting(dest, shown);
        await rename(temp, dest);
        const type = saved.fetched.response.headers.get('content-type') ?? 'unknown type';
        const from =
          saved.fetched.redirectedFrom.length > 0 ? ` (redirected to ${saved.fetched.url.href})` : '';
        return `Saved ${shown} (${formatSize(saved.size)}, ${type}) from ${url.href}${from}`;
      } finally {
        await unlink(temp).catch(() => {});
      }
    },
  });
}

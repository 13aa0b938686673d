/**
 * The workspace's files as MCP resources (`file://` URIs). Listing walks the workspace
 * without following links, leaving out `.git` and `node_modules`, up to
 * `MAX_LISTED` files. Reading takes a `file://` URI whose real path (links resolved)
 * lies inside the workspace's real path; anything else — `..` segments, a symbolic
 * link out, an encoded `/`, another absolute path, a host — is refused with the reason,
 * as is a file a permission rule denies to `read_file`. Text comes back as text,
 * anything else as base64.
 */
import { watch } from 'node:fs';
import { lstat, open, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { McpContentError, type ServedContents, type ServedResource } from '../tools/mcp/serve-content.js';
import type { PermissionView } from '../tools/types.js';

export const MAX_LISTED = 5000;
export const MAX_READ_BYTES = 4 * 1024 * 1024;
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

const MIME: Record<string, string> = {
  '.md': 'text/markdown',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.cjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.html': 'text/html',
  '.css': 'text/css',
  '.csv': 'text/csv',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.xml': 'application/xml',
  '.py': 'text/x-python',
  '.sh': 'text/x-shellscript',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.zip': 'application/zip',
};

function mimeOf(file: string): string | undefined {
  return MIME[path.extname(file).toLowerCase()];
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/** The workspace's files, sorted by path, as resources. */
export async function listWorkspaceFiles(
  cwd: string,
  warn?: (message: string) => void,
): Promise<ServedResource[]> {
  const out: ServedResource[] = [];
  const walk = async (dir: string): Promise<void> => {
    let names: string[];
    try {
      names = (await readdir(dir)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (out.length >= MAX_LISTED) return;
      const full = path.join(dir, name);
      const st = await lstat(full).catch(() => undefined);
      if (!st || st.isSymbolicLink()) continue;
      if (st.isDirectory()) {
        if (!SKIPPED_DIRS.has(name)) await walk(full);
      } else if (st.isFile()) {
        const rel = path.relative(cwd, full);
        const mimeType = mimeOf(full);
        out.push({
          uri: pathToFileURL(full).href,
          name: rel.split(path.sep).join('/'),
          description: `Workspace file ${rel}`,
          ...(mimeType ? { mimeType } : {}),
          size: st.size,
        });
      }
    }
  };
  await walk(cwd);
  if (out.length >= MAX_LISTED)
    warn?.(`resources/list: the workspace has more than ${MAX_LISTED} files; only the first are listed`);
  return out;
}

/** The path a `file://` URI names, refusing what is not a plain local file URI. */
function pathOf(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new McpContentError(`not a URI: ${uri}`);
  }
  if (url.protocol !== 'file:') throw new McpContentError(`not a file:// URI: ${uri}`);
  if (url.hostname !== '' && url.hostname !== 'localhost')
    throw new McpContentError(`file URI with a host (${url.hostname}): only local files are served`);
  if (url.search || url.hash) throw new McpContentError('a file URI must not have a query or fragment');
  try {
    return fileURLToPath(url);
  } catch (e) {
    // e.g. an encoded "/" (%2F), which would hide a path segment.
    throw new McpContentError(`bad file URI ${uri}: ${(e as Error).message}`);
  }
}

/** The real path and workspace-relative name of the file `uri` names (see the module comment for what is refused). */
async function resolveWorkspaceFile(
  uri: string,
  cwd: string,
  permissions: PermissionView,
): Promise<{ real: string; rel: string }> {
  const asked = pathOf(uri);
  const root = await realpath(cwd);
  // The path as written must already be inside (no "..", no other absolute path)…
  if (!isInside(cwd, path.resolve(asked)) && !isInside(root, path.resolve(asked)))
    throw new McpContentError(`${asked} is outside the workspace ${cwd}`);
  let real: string;
  try {
    real = await realpath(asked);
  } catch {
    throw new McpContentError(`no file ${uri}`, 'not_found');
  }
  // …and so must the file it reaches (a link inside pointing out is refused).
  if (!isInside(root, real))
    throw new McpContentError(`${asked} leads outside the workspace (to ${real}) through a symbolic link`);
  const rel = path.relative(root, real);
  const verdict = await permissions.decide({
    tool: 'read_file',
    approval: 'none',
    subject: rel.split(path.sep).join('/'),
    cwd: root,
    paths: [{ path: real, inside: true }],
  });
  if (verdict.action !== 'allow')
    throw new McpContentError(`reading ${rel} is not allowed here (${verdict.reason})`);
  return { real, rel };
}

/** One workspace file (see the module comment for what is refused). */
export async function readWorkspaceFile(
  uri: string,
  cwd: string,
  permissions: PermissionView,
): Promise<ServedContents> {
  const { real, rel } = await resolveWorkspaceFile(uri, cwd, permissions);
  const handle = await open(real, 'r');
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new McpContentError(`${rel} is not a file`);
    if (st.size > MAX_READ_BYTES)
      throw new McpContentError(`${rel} has ${st.size} bytes; at most ${MAX_READ_BYTES} are served`);
    const bytes = await handle.readFile();
    const mimeType = mimeOf(real);
    const text = bytes.includes(0) ? undefined : new TextDecoder('utf-8', { fatal: true });
    if (text) {
      try {
        return { uri, mimeType: mimeType ?? 'text/plain', text: text.decode(bytes) };
      } catch {
        // not UTF-8: sent as binary below
      }
    }
    return { uri, mimeType: mimeType ?? 'application/octet-stream', blob: bytes.toString('base64') };
  } finally {
    await handle.close();
  }
}

/**
 * Calls `changed` (at most every 100 ms) when the workspace file `uri` changes, until the
 * returned function is called. The same checks as reading apply.
 */
export async function watchWorkspaceFile(
  uri: string,
  cwd: string,
  permissions: PermissionView,
  changed: () => void,
): Promise<() => void> {
  const { real } = await resolveWorkspaceFile(uri, cwd, permissions);
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(real, { persistent: false }, () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      changed();
    }, 100);
  });
  watcher.on('error', () => watcher.close());
  return () => {
    if (timer) clearTimeout(timer);
    watcher.close();
  };
}

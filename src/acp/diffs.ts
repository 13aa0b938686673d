/**
 * Diffs for file-changing tool calls: the files a call touches are read when it
 * starts and again when it finishes, and every file that changed becomes an ACP
 * `diff` content block `{ path, oldText, newText }`.
 */
import { readFileSync, statSync } from 'node:fs';
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import type { ClientFs } from '../tools/types.js';
import { toolPaths } from './tool-info.js';

/** Tools whose changes are shown as diffs. */
export const DIFF_TOOLS: ReadonlySet<string> = new Set([
  'write_file',
  'edit_file',
  'append_file',
  'apply_patch',
]);

/** Tools that write through the client's fs when it has one (the others write to disk). */
export const CLIENT_FS_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file']);

/** Files larger than this are not diffed. */
const MAX_DIFF_BYTES = 2 * 1024 * 1024;

type Snapshot = Map<string, string | null>;

/** Reads a text file from disk; null when it is missing, not a file, binary or too large. */
export function readDiskText(abs: string): string | null {
  try {
    const info = statSync(abs);
    if (!info.isFile() || info.size > MAX_DIFF_BYTES) return null;
    const text = readFileSync(abs, 'utf8');
    return text.includes('\0') ? null : text;
  } catch {
    return null;
  }
}

export class DiffTracker {
  private readonly before = new Map<string, { name: string; paths: string[]; snap: Promise<Snapshot> }>();

  constructor(
    private readonly cwd: string,
    /** The editor's file system, when the session has one. */
    private readonly fs: ClientFs | undefined,
  ) {}

  /**
   * Remembers the files of a starting call (once: the first call for an id counts).
   * Disk files are read synchronously, so the snapshot is taken before the tool
   * (which runs asynchronously) writes.
   */
  start(callId: string, name: string, args: Record<string, unknown>): void {
    if (!DIFF_TOOLS.has(name) || this.before.has(callId)) return;
    const paths = toolPaths(name, args, this.cwd);
    const viaClient = this.fs !== undefined && CLIENT_FS_TOOLS.has(name);
    const snap = viaClient
      ? this.readAllClient(paths)
      : Promise.resolve(new Map(paths.map((p) => [p, readDiskText(p)])));
    this.before.set(callId, { name, paths, snap });
  }

  /** The diff blocks of a finished call (empty when nothing changed or it failed). */
  async finish(callId: string, ok: boolean): Promise<ToolCallContent[]> {
    const entry = this.before.get(callId);
    this.before.delete(callId);
    if (!entry || !ok) return [];
    const old = await entry.snap;
    const viaClient = this.fs !== undefined && CLIENT_FS_TOOLS.has(entry.name);
    const now = viaClient
      ? await this.readAllClient(entry.paths)
      : new Map(entry.paths.map((p) => [p, readDiskText(p)]));
    const blocks: ToolCallContent[] = [];
    for (const p of entry.paths) {
      const oldText = old.get(p) ?? null;
      const newText = now.get(p) ?? null;
      if (oldText === newText) continue;
      // A deleted file (apply_patch) shows as emptied.
      blocks.push({ type: 'diff', path: p, oldText, newText: newText ?? '' });
    }
    return blocks;
  }

  private async readAllClient(paths: readonly string[]): Promise<Snapshot> {
    const fs = this.fs!;
    const entries = await Promise.all(
      paths.map(async (p): Promise<[string, string | null]> => {
        try {
          return [p, await fs.readTextFile(p)];
        } catch {
          return [p, null];
        }
      }),
    );
    return new Map(entries);
  }
}

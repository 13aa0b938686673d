/**
 * `ClientFs` over ACP: file tools read and write text through the editor
 * (`fs/read_text_file`, `fs/write_text_file`), so they see unsaved buffers and the
 * editor tracks the changes. A capability the client lacks falls back to the disk.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AgentContext, ClientCapabilities } from '@agentclientprotocol/sdk';
import { ToolError, writeFileAtomic } from '../runtime/client-files.js';
import type { ClientFs } from '../tools/types.js';

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class AcpClientFs implements ClientFs {
  constructor(
    private readonly client: AgentContext,
    /** The session's id (known only once the session exists, after its fs was made). */
    private readonly sessionId: () => string,
    private readonly can: { read: boolean; write: boolean },
  ) {}

  async readTextFile(path: string, opts: { line?: number; limit?: number } = {}): Promise<string> {
    if (!this.can.read) {
      const text = await readFile(path, 'utf8');
      if (opts.line === undefined && opts.limit === undefined) return text;
      const start = Math.max(0, (opts.line ?? 1) - 1);
      const lines = text.split('\n');
      return lines.slice(start, opts.limit === undefined ? undefined : start + opts.limit).join('\n');
    }
    try {
      const res = await this.client.request('fs/read_text_file', {
        sessionId: this.sessionId(),
        path,
        ...(opts.line === undefined ? {} : { line: opts.line }),
        ...(opts.limit === undefined ? {} : { limit: opts.limit }),
      });
      return res.content;
    } catch (error) {
      throw new ToolError(
        `the editor could not read ${path}: ${reason(error)}`,
        'check the path; the file must exist in the editor or on disk',
      );
    }
  }

  async writeTextFile(path: string, content: string): Promise<void> {
    if (!this.can.write) {
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomic(path, content);
      return;
    }
    try {
      await this.client.request('fs/write_text_file', { sessionId: this.sessionId(), path, content });
    } catch (error) {
      throw new ToolError(
        `the editor could not write ${path}: ${reason(error)}`,
        'check that the directory exists and the file is writable',
      );
    }
  }
}

/** A ClientFs for a session when the client offers file access, else undefined (tools use the disk). */
export function clientFsFor(
  client: AgentContext,
  sessionId: () => string,
  caps: ClientCapabilities | undefined,
): ClientFs | undefined {
  const read = caps?.fs?.readTextFile === true;
  const write = caps?.fs?.writeTextFile === true;
  if (!read && !write) return undefined;
  return new AcpClientFs(client, sessionId, { read, write });
}

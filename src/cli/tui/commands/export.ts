/**
 * `/export [path]`: the session as Markdown in a file. The default name is made from the
 * title and id, in the workspace. An existing file (or link) is never overwritten: the
 * command says so and writes nothing (`wx`, so a file appearing meanwhile is not either).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { transcriptMarkdown } from '../../../runtime/session-markdown.js';
import type { TuiCommand } from '../host.js';
import { messageOf } from './format.js';

/** `tea-<title words>-<id8>.md`: letters and digits of any script, `-` between words. */
export function defaultExportName(title: string | null, id: string): string {
  const words = (title ?? '')
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return `tea-${words ? `${words}-` : ''}${id.slice(0, 8)}.md`;
}

/** Where `arg` points: `~/` is the home directory, a relative path is under the workspace. */
export function exportPath(arg: string, cwd: string, fallback: string): string {
  const given = arg.trim();
  if (given === '') return path.join(cwd, fallback);
  if (given === '~' || given.startsWith('~/')) return path.join(os.homedir(), given.slice(1));
  return path.resolve(cwd, given);
}

export const exportCommand: TuiCommand = {
  name: 'export',
  description: 'Write this session as Markdown (default: a new file in the workspace)',
  argumentHint: '[path]',
  run(arg, host) {
    const session = host.session();
    const row = host.runtime.sessions.get(session.id) ?? session.row;
    const target = exportPath(arg, row.cwd, defaultExportName(row.title, row.id));
    const markdown = transcriptMarkdown(row, host.runtime.sessions.messages(row.id));
    try {
      writeFileSync(target, markdown, { flag: 'wx', mode: 0o644 });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why =
        code === 'EEXIST'
          ? `${target} already exists, and /export does not overwrite files; give another path (/export other.md) or remove it first`
          : code === 'ENOENT'
            ? `the folder ${path.dirname(target)} does not exist; create it or give another path`
            : code === 'EISDIR'
              ? `${target} is a folder; give a file name`
              : messageOf(e);
      host.print(`Not exported: ${why}.`, { tone: 'error' });
      return;
    }
    host.print(`Exported ${Buffer.byteLength(markdown)} bytes of Markdown to ${target}.`, {
      tone: 'success',
    });
  },
};

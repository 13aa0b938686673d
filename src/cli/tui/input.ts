/**
 * What the input box needs besides pi-tui's Editor: prompt history kept under
 * TEA_HOME (bounded), completion of slash commands and `@file` mentions (workspace
 * files from ripgrep, so .gitignore is respected), and image paths in a prompt.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type AutocompleteItem,
  type AutocompleteProvider,
  type AutocompleteSuggestions,
  CombinedAutocompleteProvider,
  type Editor,
  fuzzyFilter,
  Key,
  matchesKey,
  type SlashCommand,
} from '@mariozechner/pi-tui';

/** Entries kept in the history file; older ones are dropped when it is rewritten. */
export const HISTORY_LIMIT = 500;

/** Prompt history, one JSON string per line in `<TEA_HOME>/tui-history.jsonl`. */
export class History {
  private readonly file: string;
  constructor(home: string) {
    this.file = path.join(home, 'tui-history.jsonl');
  }
  /** Oldest first. */
  load(): string[] {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return [];
    }
    const out: string[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const v: unknown = JSON.parse(line);
        if (typeof v === 'string') out.push(v);
      } catch {
        // A torn line (two tea writing at once): skipped.
      }
    }
    if (out.length > HISTORY_LIMIT * 2) this.rewrite(out.slice(-HISTORY_LIMIT));
    return out.slice(-HISTORY_LIMIT);
  }
  add(entry: string): void {
    try {
      mkdirSync(path.dirname(this.file), { recursive: true });
      appendFileSync(this.file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    } catch {
      // History is a convenience: a read-only home does not stop the TUI.
    }
  }
  private rewrite(entries: string[]): void {
    try {
      writeFileSync(this.file, entries.map((e) => `${JSON.stringify(e)}\n`).join(''), { mode: 0o600 });
    } catch {
      // as above
    }
  }
}

/** Workspace files as ripgrep lists them (honouring .gitignore), capped. */
export function workspaceFiles(cwd: string, rgPath: string, max = 20_000): Promise<string[]> {
  return new Promise((resolve) => {
    execFile(
      rgPath,
      ['--files', '--hidden', '--glob', '!.git'],
      { cwd, maxBuffer: 32 * 1024 * 1024 },
      (err, out) => {
        if (err && !out) {
          resolve([]);
          return;
        }
        resolve(out.split('\n').filter(Boolean).slice(0, max).sort());
      },
    );
  });
}

/** The `@word` ending at the cursor, or undefined. */
export function atPrefix(line: string, col: number): string | undefined {
  const m = /(?:^|\s)(@[^\s]*)$/.exec(line.slice(0, col));
  return m?.[1];
}

/**
 * Slash commands (pi-tui's provider) and `@file` mentions (ours: from ripgrep's list,
 * fuzzy-matched, so ignored files are never offered).
 */
export class TeaAutocomplete implements AutocompleteProvider {
  private readonly base: CombinedAutocompleteProvider;
  private files: Promise<string[]> | undefined;
  /** The argument list last offered, and for which text. */
  private offered: { text: string; prefix: string; values: string[] } | undefined;
  /**
   * @param byPrefix commands that take a unique prefix of one of their completions as
   *   the whole (`/resume d8df`): Enter runs them as typed instead of completing first.
   */
  constructor(
    commands: SlashCommand[],
    cwd: string,
    private readonly listFiles: () => Promise<string[]>,
    private readonly byPrefix: ReadonlySet<string> = new Set(),
  ) {
    this.base = new CombinedAutocompleteProvider(commands, cwd, null);
  }

  /**
   * Whether Enter should run `text` as typed while its argument list is open: the
   * command resolves prefixes and the typed argument starts exactly one choice.
   */
  runsAsTyped(text: string): boolean {
    const o = this.offered;
    if (!o || o.text !== text || o.prefix.trim() === '') return false;
    const word = /^\/([\w-]+)\s/.exec(text)?.[1];
    if (!word || !this.byPrefix.has(word)) return false;
    return o.values.filter((v) => v.startsWith(o.prefix.trim())).length === 1;
  }

  /**
   * An input listener for `editor`: Enter on a line `runsAsTyped` closes the list first,
   * so the editor sends the line instead of completing it (pi-tui completes an argument
   * on Enter and waits for a second one).
   */
  enterRunsTyped(editor: Editor): (data: string) => undefined {
    return (data) => {
      if (matchesKey(data, Key.enter) && editor.isShowingAutocomplete() && this.runsAsTyped(editor.getText()))
        editor.handleInput('\u001b');
      return undefined;
    };
  }
  async getSuggestions(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    options: { signal: AbortSignal; force?: boolean },
  ): Promise<AutocompleteSuggestions | null> {
    const at = atPrefix(lines[cursorLine] ?? '', cursorCol);
    if (at === undefined) {
      const s = await this.base.getSuggestions(lines, cursorLine, cursorCol, options);
      // An argument typed in full (`/mode review`): no list, so Enter runs the command.
      if (s && !s.prefix.startsWith('/') && s.items.some((i) => i.value === s.prefix)) return null;
      this.offered =
        s && !s.prefix.startsWith('/')
          ? { text: lines.join('\n'), prefix: s.prefix, values: s.items.map((i) => i.value) }
          : undefined;
      return s;
    }
    this.files ??= this.listFiles();
    const files = await this.files;
    const query = at.slice(1);
    const hits = query ? fuzzyFilter(files, query, (f) => f) : files;
    const items: AutocompleteItem[] = hits.slice(0, 50).map((f) => ({ value: `@${f}`, label: f }));
    return items.length > 0 ? { items, prefix: at } : null;
  }
  applyCompletion(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    item: AutocompleteItem,
    prefix: string,
  ): { lines: string[]; cursorLine: number; cursorCol: number } {
    if (!prefix.startsWith('@')) return this.base.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
    const line = lines[cursorLine] ?? '';
    const start = cursorCol - prefix.length;
    const next = `${line.slice(0, start)}${item.value} ${line.slice(cursorCol)}`;
    const out = [...lines];
    out[cursorLine] = next;
    return { lines: out, cursorLine, cursorCol: start + item.value.length + 1 };
  }
  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.base.shouldTriggerFileCompletion(lines, cursorLine, cursorCol);
  }
}

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

export interface ImageAttachment {
  type: 'image';
  mediaType: string;
  data: string;
}

/**
 * Image files named in a prompt (a typed or pasted path, absolute, `~/`, or relative
 * to the workspace; quoted or with `\ ` escapes as terminals paste them) that exist:
 * they become attachments, and the prompt keeps the path as text.
 */
export async function imagesIn(
  text: string,
  cwd: string,
  home: string | undefined,
): Promise<{ images: ImageAttachment[]; paths: string[] }> {
  const candidates = new Set<string>();
  const re = /'([^']+)'|"([^"]+)"|((?:\\ |[^\s'"])+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const raw = (m[1] ?? m[2] ?? m[3] ?? '').replace(/\\ /g, ' ').replace(/^@/, '');
    if (IMAGE_TYPES[path.extname(raw).toLowerCase()]) candidates.add(raw);
  }
  const images: ImageAttachment[] = [];
  const paths: string[] = [];
  for (const raw of candidates) {
    const expanded = raw.startsWith('~/') && home ? path.join(home, raw.slice(2)) : raw;
    const full = path.resolve(cwd, expanded);
    if (!existsSync(full)) continue;
    try {
      const data = (await readFile(full)).toString('base64');
      images.push({ type: 'image', mediaType: IMAGE_TYPES[path.extname(full).toLowerCase()]!, data });
      paths.push(raw);
    } catch {
      // An unreadable file stays plain text in the prompt.
    }
  }
  return { images, paths };
}

/**
 * The terminal UI's parts without a terminal: streaming Markdown (blocks parsed once,
 * the same lines as parsing the whole answer), the screen's keys (injected clock),
 * history, `@file` completion and image paths (with break-in attempts), highlighting.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Markdown } from '@mariozechner/pi-tui';
import { afterEach, describe, expect, it } from 'vitest';
import { highlightCode, htmlToAnsi } from '../../../src/cli/tui/highlight.js';
import { atPrefix, HISTORY_LIMIT, History, imagesIn, workspaceFiles } from '../../../src/cli/tui/input.js';
import { EXIT_WINDOW_MS, type KeyTarget, screenKeys } from '../../../src/cli/tui/keys.js';
import { lastBoundary, StreamingMarkdown } from '../../../src/cli/tui/stream-md.js';
import { markdownTheme } from '../../../src/cli/tui/theme.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'tea-tui-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const ANSWER =
  '# Title\n\nIntro with **bold**.\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n- one\n- two\n\nLast paragraph.';

describe('streaming Markdown', () => {
  it('cuts blocks at blank lines, never inside a code fence', () => {
    expect(lastBoundary('a\n\nb', false).cut).toBe(3);
    expect(lastBoundary('```\nx\n\ny', false).cut).toBe(-1);
    expect(lastBoundary('```\nx\n\n```\nrest', false).cut).toBe(11);
    expect(lastBoundary('no newline yet', false).cut).toBe(-1);
  });

  it('draws what a whole parse draws, however the text is cut into deltas', () => {
    const theme = markdownTheme();
    // Lines as they look (a Markdown pads its lines to the width; block gaps are empty).
    const shown = (md: StreamingMarkdown) => md.render(60).map((l) => l.trimEnd());
    const whole = new StreamingMarkdown(theme);
    whole.append(ANSWER);
    for (const size of [1, 3, 7, 50]) {
      const md = new StreamingMarkdown(theme);
      for (let i = 0; i < ANSWER.length; i += size) md.append(ANSWER.slice(i, i + size));
      expect(shown(md)).toEqual(shown(whole));
      expect(md.text).toBe(ANSWER);
    }
    const text = whole.render(60).join('\n');
    expect(text).not.toContain('**');
    expect(text).toContain('const b = 2;');
  });

  it('parses a finished block once: later deltas re-parse only the tail', () => {
    const md = new StreamingMarkdown(markdownTheme());
    md.append('First block.\n\n');
    md.render(40);
    const parsed: string[] = [];
    const original = Markdown.prototype.render;
    Markdown.prototype.render = function (this: Markdown, width: number) {
      parsed.push((this as unknown as { text: string }).text);
      return original.call(this, width);
    };
    try {
      md.append('Second ');
      md.render(40);
      md.append('block grows.');
      md.render(40);
    } finally {
      Markdown.prototype.render = original;
    }
    expect(parsed).toEqual(['Second ', 'Second block grows.']);
  });
});

describe('the screen keys', () => {
  function target(over: Partial<KeyTarget> = {}) {
    const calls: string[] = [];
    let text = 'draft';
    const t: KeyTarget = {
      busy: () => false,
      editing: () => true,
      completing: () => false,
      text: () => text,
      clearText: () => {
        calls.push('clear');
        text = '';
      },
      interrupt: () => calls.push('interrupt'),
      followUp: (s) => calls.push(`follow-up:${s}`),
      toggleTools: () => calls.push('tools'),
      toggleThinking: () => calls.push('thinking'),
      cycleMode: () => calls.push('mode'),
      hint: (h) => calls.push(`hint:${h ?? ''}`),
      exit: () => calls.push('exit'),
      ...over,
    };
    return { t, calls };
  }

  it('Ctrl-C clears, a second within the window exits; later than that it only clears again', () => {
    let now = 1000;
    const { t, calls } = target();
    const keys = screenKeys(t, () => now);
    expect(keys('\u0003')).toEqual({ consume: true });
    expect(calls).toEqual(['clear', 'hint:Ctrl-C again to exit']);
    now += EXIT_WINDOW_MS + 1;
    keys('\u0003');
    expect(calls).not.toContain('exit');
    now += EXIT_WINDOW_MS;
    keys('\u0003');
    expect(calls.at(-1)).toBe('exit');
  });

  it('Shift+Tab cycles the work mode, but not while the completion list is open', () => {
    const open = target();
    expect(screenKeys(open.t, () => 0)('\u001b[Z')).toEqual({ consume: true });
    expect(open.calls).toContain('mode');
    const completing = target({ completing: () => true });
    expect(screenKeys(completing.t, () => 0)('\u001b[Z')).toBeUndefined();
    expect(completing.calls).not.toContain('mode');
  });

  it('a key between two Ctrl-C starts the count again', () => {
    const { t, calls } = target();
    const keys = screenKeys(t, () => 0);
    keys('\u0003');
    expect(keys('x')).toBeUndefined();
    keys('\u0003');
    expect(calls).not.toContain('exit');
  });

  it('Esc interrupts only a running turn, and not while a completion list is open', () => {
    const idle = target();
    expect(screenKeys(idle.t)('\u001b')).toBeUndefined();
    const busy = target({ busy: () => true });
    screenKeys(busy.t)('\u001b');
    expect(busy.calls).toContain('interrupt');
    const completing = target({ busy: () => true, completing: () => true });
    expect(screenKeys(completing.t)('\u001b')).toBeUndefined();
  });

  it('Alt+Enter queues a follow-up while busy; idle it is left to the editor (a new line)', () => {
    const busy = target({ busy: () => true });
    screenKeys(busy.t)('\u001b\r');
    expect(busy.calls).toEqual(['hint:', 'clear', 'follow-up:draft']);
    const idle = target();
    expect(screenKeys(idle.t)('\u001b\r')).toBeUndefined();
  });

  it('Ctrl-D exits only on an empty input; keys go to an open view untouched', () => {
    const full = target();
    expect(screenKeys(full.t)('\u0004')).toBeUndefined();
    const empty = target({ text: () => '' });
    screenKeys(empty.t)('\u0004');
    expect(empty.calls).toContain('exit');
    const view = target({ editing: () => false });
    expect(screenKeys(view.t)('\u0003')).toBeUndefined();
    expect(view.calls).toEqual([]);
  });
});

describe('history', () => {
  it('persists entries (multi-line too) and keeps the last HISTORY_LIMIT', () => {
    const home = tmp();
    const h = new History(home);
    h.add('first');
    h.add('two\nlines');
    expect(new History(home).load()).toEqual(['first', 'two\nlines']);
    for (let i = 0; i < HISTORY_LIMIT * 2 + 5; i++) h.add(`n${i}`);
    const loaded = new History(home).load();
    expect(loaded).toHaveLength(HISTORY_LIMIT);
    expect(loaded.at(-1)).toBe(`n${HISTORY_LIMIT * 2 + 4}`);
    // The file was rewritten down to the limit.
    expect(readFileSync(path.join(home, 'tui-history.jsonl'), 'utf8').trim().split('\n')).toHaveLength(
      HISTORY_LIMIT,
    );
  });

  it('skips a torn line; a home that cannot be written does not throw', () => {
    const home = tmp();
    writeFileSync(path.join(home, 'tui-history.jsonl'), '"ok"\n{"torn\n42\n');
    expect(new History(home).load()).toEqual(['ok']);
    const file = path.join(tmp(), 'a-file');
    writeFileSync(file, '');
    expect(() => new History(path.join(file, 'sub')).add('x')).not.toThrow();
  });
});

describe('@file completion', () => {
  it('finds the @word at the cursor only', () => {
    expect(atPrefix('see @src/ma', 11)).toBe('@src/ma');
    expect(atPrefix('mail me@example.com', 19)).toBeUndefined();
    expect(atPrefix('@', 1)).toBe('@');
  });

  it('lists workspace files as ripgrep does: .gitignore and .git respected', async () => {
    const { rgPath } = await import('@vscode/ripgrep');
    const cwd = tmp();
    mkdirSync(path.join(cwd, '.git'));
    mkdirSync(path.join(cwd, 'src'));
    mkdirSync(path.join(cwd, 'build'));
    writeFileSync(path.join(cwd, '.gitignore'), 'build/\n*.secret\n');
    writeFileSync(path.join(cwd, 'src', 'main.ts'), '');
    writeFileSync(path.join(cwd, 'build', 'out.js'), '');
    writeFileSync(path.join(cwd, 'keys.secret'), '');
    writeFileSync(path.join(cwd, '.git', 'config'), '');
    const files = await workspaceFiles(cwd, rgPath);
    expect(files).toEqual(['.gitignore', 'src/main.ts']);
  });
});

describe('image paths in a prompt', () => {
  const PNG = Buffer.from('89504e470d0a1a0a', 'hex');

  it('attaches existing images named in the prompt: relative, quoted, escaped, @-mentioned', async () => {
    const cwd = tmp();
    writeFileSync(path.join(cwd, 'shot.png'), PNG);
    writeFileSync(path.join(cwd, 'my shot.jpg'), PNG);
    writeFileSync(path.join(cwd, 'b.webp'), PNG);
    const r = await imagesIn("look at shot.png and 'my shot.jpg' and @b.webp", cwd, undefined);
    expect(r.paths.sort()).toEqual(['b.webp', 'my shot.jpg', 'shot.png']);
    expect(r.images.map((i) => i.mediaType).sort()).toEqual(['image/jpeg', 'image/png', 'image/webp']);
    expect(r.images[0]!.data).toBe(PNG.toString('base64'));
    const escaped = await imagesIn('see my\\ shot.jpg', cwd, undefined);
    expect(escaped.paths).toEqual(['my shot.jpg']);
  });

  it.each([
    ['a missing file', 'look at nothing.png'],
    ['a name that is not an image', 'read notes.txt and notes.png.txt'],
    ['a directory named like an image', 'dir.png'],
    ['an unreadable (dangling) symlink', 'gone.png'],
  ])('attaches nothing for %s', async (_what, prompt) => {
    const cwd = tmp();
    writeFileSync(path.join(cwd, 'notes.txt'), 'x');
    mkdirSync(path.join(cwd, 'dir.png'));
    symlinkSync(path.join(cwd, 'nowhere'), path.join(cwd, 'gone.png'));
    const r = await imagesIn(prompt, cwd, undefined);
    expect(r.images).toEqual([]);
  });
});

describe('highlighting', () => {
  it('colours keywords and strings, and opens spans again on the next line', () => {
    const lines = highlightCode('const s = `a\nb`;', 'ts');
    expect(lines[0]).toContain('\u001b[35mconst');
    expect(lines[1]!.startsWith('\u001b[32m')).toBe(true);
  });

  it('leaves an unknown language plain and unescapes entities', () => {
    expect(highlightCode('a < b', 'cobol')).toEqual(['a < b']);
    expect(htmlToAnsi('&lt;&amp;&gt;')).toEqual(['<&>\u001b[0m']);
  });
});

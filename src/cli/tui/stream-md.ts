/**
 * An answer that streams in as Markdown, drawn without parsing the whole answer on
 * every delta: the text is cut into blocks at blank lines outside code fences; a
 * finished block is parsed once (a pi-tui Markdown, which caches its lines per width)
 * and only the open tail is parsed again as deltas arrive. A 5,000-line answer thus
 * costs each frame one small parse plus joining cached lines.
 */
import { type Component, Markdown, type MarkdownTheme } from '@mariozechner/pi-tui';

/** Where the open tail may be cut: the end of its last blank line outside a fence, or -1. */
export function lastBoundary(text: string, fenced: boolean): { cut: number; fenced: boolean } {
  let cut = -1;
  let inFence = fenced;
  let fenceAtCut = fenced;
  let start = 0;
  let prevBlank = false;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break; // the last line is still open
    const line = text.slice(start, nl);
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      inFence = !inFence;
      // A closed fence ends a block by itself.
      if (!inFence) {
        cut = nl + 1;
        fenceAtCut = false;
      }
    } else if (!inFence && line.trim() === '' && !prevBlank) {
      cut = nl + 1;
      fenceAtCut = false;
    }
    prevBlank = line.trim() === '';
    start = nl + 1;
  }
  return { cut, fenced: fenceAtCut };
}

export class StreamingMarkdown implements Component {
  private readonly blocks: Markdown[] = [];
  private tail = '';
  private readonly tailView: Markdown;
  private readonly all: string[] = [];
  /** Cached lines of the finished blocks, per width. */
  private doneLines: string[] = [];
  private doneCount = 0;
  private doneWidth = -1;

  constructor(private theme: MarkdownTheme) {
    this.tailView = new Markdown('', 0, 0, theme);
  }

  /** The whole text so far. */
  get text(): string {
    return this.all.join('') + this.tail;
  }

  append(delta: string): void {
    this.tail += delta;
    const { cut } = lastBoundary(this.tail, false);
    if (cut > 0) {
      const done = this.tail.slice(0, cut);
      this.tail = this.tail.slice(cut);
      if (done.trim() !== '') {
        this.blocks.push(new Markdown(done.replace(/\n+$/, ''), 0, 0, this.theme));
        this.all.push(done);
      } else this.all.push(done);
    }
    this.tailView.setText(this.tail.replace(/\n+$/, ''));
  }

  /** A new theme (e.g. once highlighting has loaded): everything is drawn again. */
  setTheme(theme: MarkdownTheme): void {
    this.theme = theme;
    const text = this.text;
    this.blocks.length = 0;
    this.all.length = 0;
    this.tail = '';
    this.doneWidth = -1;
    this.append(text);
  }

  invalidate(): void {
    this.doneWidth = -1;
    for (const b of this.blocks) b.invalidate();
    this.tailView.invalidate();
  }

  render(width: number): string[] {
    if (width !== this.doneWidth) {
      this.doneLines = [];
      this.doneCount = 0;
      this.doneWidth = width;
    }
    for (; this.doneCount < this.blocks.length; this.doneCount++) {
      if (this.doneLines.length > 0) this.doneLines.push('');
      for (const l of this.blocks[this.doneCount]!.render(width)) this.doneLines.push(l);
    }
    if (this.tail.trim() === '') return this.doneLines;
    const tail = this.tailView.render(width);
    return this.doneLines.length > 0 ? this.doneLines.concat('', tail) : tail;
  }
}

/**
 * Splits streamed model text into answer text and `<think>…</think>` reasoning
 * (DeepSeek-R1, QwQ and others served without a reasoning parser). Tags may be
 * cut anywhere across chunks, so a possible partial tag at the end of a chunk is
 * held back until the next chunk (or `flush`) decides it.
 */

export interface ThinkSegment {
  type: 'text' | 'thinking';
  text: string;
}

const OPEN = '<think>';
const CLOSE = '</think>';

export class ThinkTagSplitter {
  private inThink = false;
  private held = '';
  /** Whitespace right after a tag is layout, not content. */
  private trimLeading = false;

  /** Feeds one chunk; returns the segments that are now certain (possibly none). */
  push(chunk: string): ThinkSegment[] {
    const out: ThinkSegment[] = [];
    let buf = this.held + chunk;
    this.held = '';
    while (buf !== '') {
      const tag = this.inThink ? CLOSE : OPEN;
      const at = buf.indexOf(tag);
      if (at >= 0) {
        this.emit(out, buf.slice(0, at));
        buf = buf.slice(at + tag.length);
        this.inThink = !this.inThink;
        this.trimLeading = true;
        continue;
      }
      const keep = partialTagSuffix(buf, tag);
      this.emit(out, buf.slice(0, buf.length - keep));
      this.held = buf.slice(buf.length - keep);
      break;
    }
    return out;
  }

  /** Ends the stream: whatever was held back is plain content of the current kind. */
  flush(): ThinkSegment[] {
    const out: ThinkSegment[] = [];
    this.emit(out, this.held);
    this.held = '';
    return out;
  }

  private emit(out: ThinkSegment[], raw: string): void {
    let text = raw;
    if (this.trimLeading) {
      text = text.trimStart();
      if (text === '') return;
      this.trimLeading = false;
    }
    if (text === '') return;
    const type = this.inThink ? 'thinking' : 'text';
    const last = out.at(-1);
    if (last?.type === type) last.text += text;
    else out.push({ type, text });
  }
}

/** Length of the longest end of `buf` that is a proper start of `tag`. */
function partialTagSuffix(buf: string, tag: string): number {
  for (let k = Math.min(tag.length - 1, buf.length); k > 0; k--) {
    if (buf.endsWith(tag.slice(0, k))) return k;
  }
  return 0;
}

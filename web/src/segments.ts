/**
 * The streamed text and thinking of the current model call in a transcript: Markdown
 * re-rendered at most once per frame, a thinking block that folds away when the text
 * after it starts, and both dropped when a retried or re-routed call starts over.
 */
import { h } from './dom.js';
import { setMarkdown } from './markdown.js';

interface Segment {
  node: HTMLElement;
  source: string;
}

export class Segments {
  private text: Segment | null = null;
  private thinking: Segment | null = null;
  private dirty = new Set<Segment>();
  private frame = 0;

  constructor(
    /** The assistant message the segments go into (made when first needed). */
    private readonly turnNode: () => HTMLElement,
    /** After a frame's re-render: follow the stream. */
    private readonly rendered: () => void,
  ) {}

  appendText(text: string): void {
    if (this.thinking) this.closeThinking(this.thinking);
    this.thinking = null;
    if (!this.text) {
      const node = h('div', { class: 'markdown', 'data-testid': 'assistant-text' });
      this.turnNode().appendChild(node);
      this.text = { node, source: '' };
    }
    this.text.source += text;
    this.schedule(this.text);
  }

  appendThinking(text: string, live: boolean): void {
    if (this.text) this.flush(this.text);
    this.text = null;
    if (!this.thinking) {
      const body = h('div', { class: 'thinking-body' });
      const block = h(
        'details',
        { class: 'thinking', 'data-testid': 'thinking', open: live },
        h('summary', {}, 'Thinking'),
        body,
      );
      this.turnNode().appendChild(block);
      this.thinking = { node: body, source: '' };
    }
    this.thinking.source += text;
    this.schedule(this.thinking);
  }

  /** Drops what the current model call showed: a retried or re-routed call starts over. */
  drop(): void {
    this.text?.node.remove();
    this.thinking?.node.parentElement?.remove();
    this.text = null;
    this.thinking = null;
  }

  /** Renders pending Markdown now and forgets the open text and thinking segments. */
  end(): void {
    if (this.text) this.flush(this.text);
    if (this.thinking) this.closeThinking(this.thinking);
    this.text = null;
    this.thinking = null;
  }

  /** A finished thinking block folds away (one click opens it again). */
  private closeThinking(segment: Segment): void {
    this.flush(segment);
    const details = segment.node.parentElement;
    if (details instanceof HTMLDetailsElement) details.open = false;
  }

  /** Re-renders streamed Markdown at most once per frame. */
  private schedule(segment: Segment): void {
    this.dirty.add(segment);
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      const segments = [...this.dirty];
      this.dirty = new Set();
      for (const s of segments) setMarkdown(s.node, s.source);
      this.rendered();
    });
  }

  private flush(segment: Segment): void {
    this.dirty.delete(segment);
    setMarkdown(segment.node, segment.source);
  }
}

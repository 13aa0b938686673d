/**
 * What commands print while a turn runs (`/cost`, `/help`, "/undo waits for the turn to
 * end…"): held above the input box, under the streaming answer, and moved into the
 * transcript, in order, when the turn ends. Printed straight into the transcript they
 * would land in the middle of the answer and split its words.
 */
import type { Container } from '@mariozechner/pi-tui';
import { type Tone, Transcript, type TranscriptDeps } from './transcript.js';

export class Notes {
  private readonly held: Transcript;

  constructor(
    private readonly box: Container,
    private readonly transcript: Transcript,
    deps: TranscriptDeps,
  ) {
    this.held = new Transcript(box, deps);
  }

  /** A block printed while a turn runs: shown above the input box until `flush`. */
  print(text: string, tone: Tone, markdown: boolean): void {
    this.held.print(text, tone, markdown);
  }

  get size(): number {
    return this.box.children.length;
  }

  /** The turn ended: the held blocks go into the transcript, after its answer. */
  flush(): void {
    if (this.box.children.length === 0) return;
    const blocks = [...this.box.children];
    this.box.clear();
    this.transcript.adopt(blocks);
  }
}

/**
 * A shell command's output as it arrives: all of it in memory up to `maxChars`; past
 * that, only the head and tail stay in memory and the whole output goes to a file (the
 * one the runner would save a long output to), up to `maxBytes`. So the runner's
 * truncation can point the model to the full text of any output, in bounded memory.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { HeadTailBuffer } from '../truncate.js';
import type { SavedOutput } from '../types.js';

export interface SpillTarget {
  /** The file the whole output is written to once it outgrows memory. */
  path: string;
  /** Bytes written before saving stops (the rest is only in the head+tail). */
  maxBytes: number;
}

export class CommandOutput {
  private readonly buffer: HeadTailBuffer;
  /** Characters held before the buffer starts dropping the middle. */
  private readonly held: number;
  private file: WriteStream | undefined;
  private bytes = 0;
  private cut = false;
  private failed = false;

  /**
   * @param pause called with true when the file cannot keep up (stop reading the
   *   command's pipes) and with false when it can again.
   */
  constructor(
    private readonly maxChars: number,
    private readonly spill: SpillTarget | undefined,
    private readonly pause: (paused: boolean) => void = () => undefined,
  ) {
    const keep = Math.max(1, Math.floor(maxChars / 2));
    this.buffer = new HeadTailBuffer(keep);
    this.held = keep * 2;
  }

  get totalChars(): number {
    return this.buffer.totalChars;
  }

  push(chunk: string): void {
    // The moment memory would start dropping the middle, the whole so far goes to the file.
    if (this.spill && !this.file && !this.failed && this.buffer.totalChars + chunk.length > this.held) {
      this.open(this.spill.path);
    }
    this.buffer.push(chunk);
    if (this.file) this.write(chunk);
  }

  private open(path: string): void {
    try {
      mkdirSync(dirname(path), { recursive: true });
      this.file = createWriteStream(path, { flags: 'w' });
    } catch {
      this.failed = true;
      return;
    }
    this.file.on('error', () => {
      this.failed = true;
      this.pause(false);
    });
    this.file.on('drain', () => this.pause(false));
    this.write(this.buffer.toString(Number.POSITIVE_INFINITY));
  }

  private write(chunk: string): void {
    if (this.cut || this.failed || !this.file) return;
    if (this.bytes >= (this.spill?.maxBytes ?? 0)) {
      this.cut = true;
      return;
    }
    this.bytes += Buffer.byteLength(chunk, 'utf8');
    if (!this.file.write(chunk)) this.pause(true);
  }

  /** The output head+tail within `maxChars`, and the file holding all of it when there is one. */
  async finish(): Promise<{ text: string; saved?: SavedOutput }> {
    const text = this.buffer.toString(this.maxChars);
    const file = this.file;
    if (file === undefined || this.spill === undefined) return { text };
    await new Promise<void>((resolve) => {
      file.once('close', () => resolve());
      file.end();
    });
    if (this.failed) {
      await unlink(this.spill.path).catch(() => undefined);
      return { text };
    }
    const saved: SavedOutput = {
      path: this.spill.path,
      chars: this.buffer.totalChars,
      complete: !this.cut,
      bytes: this.bytes,
    };
    return { text, saved };
  }
}

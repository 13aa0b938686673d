/**
 * Exact nearest neighbours over vectors held in WebAssembly memory: every row is
 * compared with the query by a SIMD dot-product kernel (knn-kernel.wat), about
 * four times faster than sqlite-vec's scalar scan of the same vectors.
 */
import { KNN_KERNEL_BASE64 } from './knn-kernel.js';

/** One neighbour, as sqlite-vec's `vec0` KNN reports it: rowid and L2 distance. */
export interface Neighbour {
  rowid: number;
  distance: number;
}

/** The little of the WebAssembly API used here (Node has it; the DOM lib, which declares it, is not loaded). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
};

interface Kernel {
  memory: WasmMemory;
  dots: (rows: number, query: number, n: number, strideBytes: number, out: number) => void;
}

let compiled: object | undefined;

function instantiate(): Kernel {
  compiled ??= new WebAssembly.Module(Buffer.from(KNN_KERNEL_BASE64, 'base64'));
  const { exports } = new WebAssembly.Instance(compiled);
  return { memory: exports.memory as WasmMemory, dots: exports.dots as Kernel['dots'] };
}

const PAGE = 65_536;
const FIRST_CAPACITY = 1024;

/**
 * The vectors of one dimension. Memory layout (bytes): the query (one row), then
 * `capacity` rows, then one float of output per row. Rows are zero-padded to a
 * multiple of 8 floats, the kernel's step.
 */
export class VectorMatrix {
  readonly dims: number;
  /** Floats per row (dims rounded up to a multiple of 8). */
  private readonly stride: number;
  private readonly kernel = instantiate();
  private capacity = 0;
  /** Slot → rowid, and back. */
  private ids: number[] = [];
  private readonly slots = new Map<number, number>();
  /** Squared length of each slot's vector. */
  private norms = new Float64Array(0);

  constructor(dims: number) {
    this.dims = dims;
    this.stride = Math.ceil(dims / 8) * 8;
  }

  get size(): number {
    return this.ids.length;
  }

  /** Bytes of WebAssembly memory these rows need. */
  static bytesFor(dims: number, rows: number): number {
    const stride = Math.ceil(dims / 8) * 8 * 4;
    return stride * (rows + 1) + rows * 4;
  }

  private view = new Float32Array(0);

  /** The kernel's memory as floats (a new view only after the memory grew). */
  private floats(): Float32Array {
    if (this.view.buffer !== this.kernel.memory.buffer)
      this.view = new Float32Array(this.kernel.memory.buffer);
    return this.view;
  }

  /** Float offset of a slot's row. */
  private rowAt(slot: number): number {
    return this.stride * (slot + 1);
  }

  private outAt(): number {
    return this.stride * (this.capacity + 1);
  }

  /** Makes room for `rows` rows in all (growing the memory once, not row by row). */
  reserve(rows: number): void {
    if (rows > this.capacity) this.grow(rows);
  }

  private grow(atLeast = 0): void {
    const capacity = Math.max(FIRST_CAPACITY, this.capacity * 2, atLeast);
    const need = VectorMatrix.bytesFor(this.dims, capacity);
    const have = this.kernel.memory.buffer.byteLength;
    if (need > have) this.kernel.memory.grow(Math.ceil((need - have) / PAGE));
    const norms = new Float64Array(capacity);
    norms.set(this.norms);
    this.norms = norms;
    this.capacity = capacity;
  }

  /** Adds the vector of `rowid`, or replaces it. */
  upsert(rowid: number, vector: Float32Array): void {
    if (vector.length !== this.dims) {
      throw new Error(`VectorMatrix: expected ${this.dims} dimensions, got ${vector.length}`);
    }
    let slot = this.slots.get(rowid);
    if (slot === undefined) {
      if (this.ids.length === this.capacity) this.grow();
      slot = this.ids.length;
      this.ids.push(rowid);
      this.slots.set(rowid, slot);
    }
    const f = this.floats();
    const at = this.rowAt(slot);
    if (this.stride !== this.dims) f.fill(0, at + this.dims, at + this.stride);
    f.set(vector, at);
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += (vector[i] as number) ** 2;
    this.norms[slot] = norm;
  }

  /** Removes `rowid` (the last row moves into its slot). */
  remove(rowid: number): void {
    const slot = this.slots.get(rowid);
    if (slot === undefined) return;
    const last = this.ids.length - 1;
    const moved = this.ids[last] as number;
    if (slot !== last) {
      const f = this.floats();
      f.copyWithin(this.rowAt(slot), this.rowAt(last), this.rowAt(last) + this.stride);
      this.norms[slot] = this.norms[last] as number;
      this.ids[slot] = moved;
      this.slots.set(moved, slot);
    }
    this.ids.pop();
    this.slots.delete(rowid);
  }

  /**
   * The `k` rows closest to `query` by L2 distance, nearest first (ties by rowid),
   * the same answer a `vec0` KNN query gives over the same vectors.
   */
  nearest(query: Float32Array, k: number): Neighbour[] {
    const n = this.ids.length;
    if (n === 0 || k <= 0) return [];
    const f = this.floats();
    f.fill(0, 0, this.stride);
    f.set(query.subarray(0, this.dims), 0);
    let queryNorm = 0;
    for (let i = 0; i < this.dims; i++) queryNorm += (query[i] ?? 0) ** 2;
    const out = this.outAt();
    this.kernel.dots(this.rowAt(0) * 4, 0, n, this.stride * 4, out * 4);
    const dots = this.floats().subarray(out, out + n);
    // The k smallest squared distances, kept sorted; most rows fail the first comparison.
    const best: Array<{ slot: number; d2: number }> = [];
    for (let slot = 0; slot < n; slot++) {
      const d2 = queryNorm + (this.norms[slot] as number) - 2 * (dots[slot] as number);
      const worst = best[best.length - 1];
      if (best.length === k && worst !== undefined && !closer(d2, slot, worst, this.ids)) continue;
      let at = best.length === k ? k - 1 : best.length;
      while (at > 0 && closer(d2, slot, best[at - 1] as { slot: number; d2: number }, this.ids)) {
        best[at] = best[at - 1] as { slot: number; d2: number };
        at--;
      }
      best[at] = { slot, d2 };
    }
    return best.map(({ slot, d2 }) => ({
      rowid: this.ids[slot] as number,
      distance: Math.sqrt(Math.max(0, d2)),
    }));
  }
}

function closer(d2: number, slot: number, other: { slot: number; d2: number }, ids: number[]): boolean {
  return d2 < other.d2 || (d2 === other.d2 && (ids[slot] as number) < (ids[other.slot] as number));
}

import { describe, expect, it } from 'vitest';
import { prng as rng } from '../../bench/memory-corpus.js';
// @ts-expect-error: a plain ES module script without type declarations
import { compileKernel } from '../../scripts/knn-kernel.mjs';
import { KNN_KERNEL_BASE64 } from '../../src/memory/knn-kernel.js';
import { VectorMatrix } from '../../src/memory/knn-matrix.js';

function randomVector(next: () => number, dims: number): Float32Array {
  const v = new Float32Array(dims);
  for (let i = 0; i < dims; i++) v[i] = next() * 2 - 1;
  return v;
}

/** The reference answer: L2 distances in double precision, nearest first, ties by rowid. */
function bruteForce(rows: Map<number, Float32Array>, query: Float32Array, k: number) {
  return [...rows]
    .map(([rowid, v]) => {
      let d2 = 0;
      for (let i = 0; i < v.length; i++) d2 += ((v[i] ?? 0) - (query[i] ?? 0)) ** 2;
      return { rowid, distance: Math.sqrt(d2) };
    })
    .sort((a, b) => a.distance - b.distance || a.rowid - b.rowid)
    .slice(0, k);
}

function expectSameNeighbours(
  got: Array<{ rowid: number; distance: number }>,
  want: Array<{ rowid: number; distance: number }>,
) {
  expect(got.map((n) => n.rowid)).toEqual(want.map((n) => n.rowid));
  for (const [i, n] of got.entries()) expect(n.distance).toBeCloseTo(want[i]?.distance ?? Number.NaN, 4);
}

describe('the KNN kernel', () => {
  it('is the compiled knn-kernel.wat (run `npm run build:kernel` after editing it)', async () => {
    expect(KNN_KERNEL_BASE64).toBe(await compileKernel());
  });
});

describe('VectorMatrix', () => {
  for (const dims of [8, 13, 192, 385]) {
    it(`finds the same neighbours as a brute-force scan (${dims} dimensions, padded rows)`, () => {
      const next = rng(dims);
      const matrix = new VectorMatrix(dims);
      const rows = new Map<number, Float32Array>();
      for (let id = 1; id <= 2500; id++) {
        const v = randomVector(next, dims);
        rows.set(id * 3, v);
        matrix.upsert(id * 3, v);
      }
      for (let q = 0; q < 5; q++) {
        const query = randomVector(next, dims);
        expectSameNeighbours(matrix.nearest(query, 40), bruteForce(rows, query, 40));
      }
    });
  }

  it('keeps answering right through replacements and removals (the last row moves into the gap)', () => {
    const next = rng(7);
    const matrix = new VectorMatrix(16);
    const rows = new Map<number, Float32Array>();
    for (let id = 1; id <= 3000; id++) {
      const v = randomVector(next, 16);
      rows.set(id, v);
      matrix.upsert(id, v);
    }
    for (let round = 0; round < 400; round++) {
      const id = 1 + Math.floor(next() * 3000);
      if (next() < 0.5) {
        rows.delete(id);
        matrix.remove(id);
      } else {
        const v = randomVector(next, 16);
        rows.set(id, v);
        matrix.upsert(id, v);
      }
    }
    matrix.remove(999_999); // not there: nothing happens
    expect(matrix.size).toBe(rows.size);
    for (let q = 0; q < 5; q++) {
      const query = randomVector(next, 16);
      expectSameNeighbours(matrix.nearest(query, 25), bruteForce(rows, query, 25));
    }
  });

  it('measures zero vectors and unequal lengths exactly, and breaks ties by rowid', () => {
    const matrix = new VectorMatrix(4);
    matrix.upsert(5, new Float32Array([1, 0, 0, 0]));
    matrix.upsert(2, new Float32Array([1, 0, 0, 0]));
    matrix.upsert(9, new Float32Array([0, 0, 0, 0]));
    matrix.upsert(4, new Float32Array([0, 3, 0, 0]));
    const got = matrix.nearest(new Float32Array([1, 0, 0, 0]), 10);
    expect(got.map((n) => n.rowid)).toEqual([2, 5, 9, 4]);
    expect(got.map((n) => n.distance)).toEqual([0, 0, 1, Math.sqrt(10)]);
  });

  it('returns nothing when empty or asked for none, and refuses a vector of another length', () => {
    const matrix = new VectorMatrix(8);
    expect(matrix.nearest(new Float32Array(8), 5)).toEqual([]);
    matrix.upsert(1, new Float32Array(8).fill(1));
    expect(matrix.nearest(new Float32Array(8), 0)).toEqual([]);
    expect(() => matrix.upsert(2, new Float32Array(7))).toThrow(/expected 8 dimensions, got 7/);
  });
});

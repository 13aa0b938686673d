/** A duration as people read it: `850 ms`, `1.2 s`, `60 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 100) / 10;
  return `${s} s`;
}

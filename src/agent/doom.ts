import type { ToolCallPart } from '../llm/types.js';

/** Stable JSON: object keys sorted, so `{a,b}` and `{b,a}` are the same call. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Detects a model that keeps making the same tool call: `limit` identical
 * consecutive calls (same name, same arguments) trip it.
 */
export class DoomLoopDetector {
  private last = '';
  private count = 0;

  constructor(private readonly limit = 3) {}

  /** Records a call; returns true when this call is the `limit`-th identical one in a row. */
  record(call: ToolCallPart): boolean {
    const sig = `${call.name}\u0000${canonical(call.args)}`;
    if (sig === this.last) {
      this.count += 1;
    } else {
      this.last = sig;
      this.count = 1;
    }
    return this.count >= this.limit;
  }
}

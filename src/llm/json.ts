import { jsonrepair } from 'jsonrepair';

export interface ParsedToolArgs {
  args: Record<string, unknown>;
  /** True when the raw text was not valid JSON but `jsonrepair` could fix it. */
  repaired: boolean;
  /** Set when nothing usable could be read; `args` is then `{}`. */
  error?: string;
}

const PREVIEW_CHARS = 200;

function preview(raw: string): string {
  return raw.length > PREVIEW_CHARS ? `${raw.slice(0, PREVIEW_CHARS)}…` : raw;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** Accepts only a JSON object; `repaired` is reported only for a usable result. */
function asObject(value: unknown, raw: string, repaired: boolean): ParsedToolArgs {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return { args: value as Record<string, unknown>, repaired };
  }
  return {
    args: {},
    repaired: false,
    error: `tool arguments must be a JSON object, got ${describe(value)}: ${preview(raw)}`,
  };
}

/**
 * Reads the arguments a model sent for a tool call: strict JSON first, then a
 * tolerant repair (trailing commas, single quotes, cut-off objects…). An empty
 * string means no arguments. Never throws.
 */
export function parseToolArgs(raw: string): ParsedToolArgs {
  if (raw.trim() === '') return { args: {}, repaired: false };
  try {
    return asObject(JSON.parse(raw), raw, false);
  } catch {
    // fall through to repair
  }
  let repairedText: string;
  try {
    repairedText = jsonrepair(raw);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      args: {},
      repaired: false,
      error: `tool arguments are not valid JSON (${reason}): ${preview(raw)}`,
    };
  }
  try {
    return asObject(JSON.parse(repairedText), raw, true);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      args: {},
      repaired: false,
      error: `tool arguments are not valid JSON (${reason}): ${preview(raw)}`,
    };
  }
}

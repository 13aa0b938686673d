/**
 * Every JSON document the CLI prints (`--json`, `--output-format json|stream-json`,
 * `tea memory export`) names its fields in snake_case, like the OpenAI-style API:
 * `session_id`, `created_at`, `input_tokens`. Values that are data rather than our
 * own fields keep their keys: a tool call's arguments and a JSON schema.
 */

/** Keys whose values are passed through as they are. */
const OPAQUE = new Set(['args', 'parameters', 'input_schema', 'output_schema', 'attributes', 'metadata']);

function snake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A copy of `value` with every object key in snake_case (but inside opaque fields). */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const name = snake(key);
    out[name] = OPAQUE.has(name) ? inner : snakeKeys(inner);
  }
  return out;
}

/** The JSON text of `value` with snake_case keys (pretty unless `compact`), newline-terminated. */
export function jsonText(value: unknown, compact = false): string {
  return `${JSON.stringify(snakeKeys(value), null, compact ? undefined : 2)}\n`;
}

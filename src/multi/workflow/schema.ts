/**
 * Typed state and input. A YAML workflow declares each key with a small
 * JSON-Schema-like mapping (or just a type name); a TypeScript one with zod. Both
 * end as zod object schemas: values are checked whenever a node writes them.
 *
 *   state:
 *     files: { type: array, items: string, default: [] }
 *     approved: { type: boolean, default: false }
 *     verdict: { type: string, enum: [pass, fail] }
 *     notes: string
 */
import * as z from 'zod';

export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'any'] as const;

/** A schema problem at `key` (dotted, under `input` or `state`), with a fix. */
export class SchemaSpecError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
    this.name = 'SchemaSpecError';
  }
}

const KNOWN = new Set(['type', 'items', 'properties', 'required', 'enum', 'default', 'description']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The zod type of one field spec; throws a SchemaSpecError naming `key`. */
export function fieldSchema(spec: unknown, key: string): z.ZodType {
  const s: Record<string, unknown> = typeof spec === 'string' ? { type: spec } : isRecord(spec) ? spec : {};
  if (!isRecord(spec) && typeof spec !== 'string') {
    throw new SchemaSpecError(
      key,
      `expected a type name (${FIELD_TYPES.join(', ')}) or a mapping with "type"`,
    );
  }
  for (const k of Object.keys(s)) {
    if (!KNOWN.has(k))
      throw new SchemaSpecError(key, `unknown schema key "${k}" (use ${[...KNOWN].join(', ')})`);
  }
  const type = s.type ?? (s.enum !== undefined ? 'string' : undefined);
  if (typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type)) {
    throw new SchemaSpecError(
      key,
      `${type === undefined ? 'missing "type"' : `unknown type "${String(type)}"`}: use one of ${FIELD_TYPES.join(', ')}`,
    );
  }
  let zt: z.ZodType;
  switch (type) {
    case 'string':
      zt = z.string();
      break;
    case 'number':
      zt = z.number();
      break;
    case 'integer':
      zt = z.number().int();
      break;
    case 'boolean':
      zt = z.boolean();
      break;
    case 'array':
      zt = z.array(s.items === undefined ? z.unknown() : fieldSchema(s.items, `${key}.items`));
      break;
    case 'object': {
      if (s.properties !== undefined && !isRecord(s.properties)) {
        throw new SchemaSpecError(`${key}.properties`, 'expected a mapping of property names to schemas');
      }
      const required = Array.isArray(s.required) ? s.required.map(String) : [];
      const props = Object.entries(s.properties ?? {}).map(([name, p]) => {
        const inner = fieldSchema(p, `${key}.properties.${name}`);
        return [name, required.includes(name) ? inner : inner.optional()] as const;
      });
      zt = props.length > 0 ? z.looseObject(Object.fromEntries(props)) : z.record(z.string(), z.unknown());
      break;
    }
    default:
      zt = z.unknown();
  }
  if (s.enum !== undefined) {
    if (!Array.isArray(s.enum) || s.enum.length === 0) {
      throw new SchemaSpecError(`${key}.enum`, 'expected a non-empty list of allowed values');
    }
    const allowed = s.enum as unknown[];
    const base = zt;
    zt = base.refine((v) => allowed.some((a) => a === v), {
      message: `expected one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
    });
  }
  if (s.default !== undefined) {
    const ok = zt.safeParse(s.default);
    if (!ok.success) {
      throw new SchemaSpecError(
        `${key}.default`,
        `the default does not fit the type: ${issueText(ok.error)}`,
      );
    }
  }
  return zt;
}

export interface Fields {
  schema: z.ZodObject;
  /** The keys that must be given (input fields without a default). */
  required: string[];
}

/**
 * The object schema of a `state` or `input` section. State keys are all optional
 * (absent until written) unless they have a default; input keys without a default
 * are required unless `required: false`.
 */
export function fieldsSchema(section: unknown, name: 'state' | 'input'): Fields {
  if (section === undefined || section === null) return { schema: z.object({}), required: [] };
  if (!isRecord(section)) throw new SchemaSpecError(name, 'expected a mapping of keys to types');
  const shape: Record<string, z.ZodType> = {};
  const required: string[] = [];
  for (const [key, spec] of Object.entries(section)) {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) {
      throw new SchemaSpecError(
        `${name}.${key}`,
        'a key must be a name templates can read (a letter, then letters, digits and _)',
      );
    }
    const field = fieldSchema(spec, `${name}.${key}`);
    const s = isRecord(spec) ? spec : {};
    if (s.default !== undefined) shape[key] = field.default(s.default as never);
    else if (name === 'input' && s.required !== false) {
      shape[key] = field;
      required.push(key);
    } else shape[key] = field.optional();
  }
  return { schema: z.object(shape), required };
}

/** One line for zod issues: `files: expected array, received string`. */
export function issueText(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const where = i.path.length > 0 ? `${i.path.join('.')}: ` : '';
      return `${where}${i.message.replace(/^Invalid input: /, '')}`;
    })
    .join('; ');
}

/** Strips a Markdown code fence around JSON (models like to add one). */
function unfence(text: string): string {
  const m = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return (m ? m[1]! : text).trim();
}

/**
 * `value` checked against `schema`; text that does not fit but whose JSON does
 * (an agent's answer for a list, a `--input` number) is parsed first.
 */
export function fitValue(
  schema: z.ZodType,
  value: unknown,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const direct = schema.safeParse(value);
  if (direct.success) return { ok: true, value: direct.data };
  if (typeof value === 'string') {
    let json: unknown;
    try {
      json = JSON.parse(unfence(value));
    } catch {
      return { ok: false, error: issueText(direct.error) };
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) return { ok: true, value: parsed.data };
    // Text that is JSON but not of the shape: its own error says more.
    if (json !== null && typeof json === 'object') return { ok: false, error: issueText(parsed.error) };
  }
  return { ok: false, error: issueText(direct.error) };
}

/** A short text of a value for error messages. */
export function preview(value: unknown, max = 60): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

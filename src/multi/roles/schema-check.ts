/**
 * Whether a role's `output_schema` is a JSON Schema tea can check answers against: the
 * keywords that shape a schema hold the right kinds of values (zod's converter accepts
 * most mistakes quietly), then zod converts it (zod is loaded only for a role that has a
 * schema).
 */
import { closest } from '../../config/suggest.js';
import { loadZod } from './zod-full.js';

export interface SchemaProblem {
  /** Dotted path of the bad keyword under the schema, e.g. `properties.severity.type`. */
  at: string;
  expected: string;
  got: string;
}

const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const SUBSCHEMA = [
  'additionalProperties',
  'additionalItems',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'];
const NUMBERS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (isMapping(value)) return 'a mapping';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const join = (at: string, key: string | number): string =>
  typeof key === 'number' ? `${at}[${key}]` : at ? `${at}.${key}` : key;

function typeProblem(value: unknown, at: string): SchemaProblem | undefined {
  const names = Array.isArray(value) ? value : [value];
  const bad = names.find((t) => typeof t !== 'string' || !TYPES.includes(t));
  if (names.length > 0 && bad === undefined) return undefined;
  const near = typeof bad === 'string' ? closest(bad, TYPES, 1)[0] : undefined;
  return {
    at,
    expected: `a JSON Schema type (${TYPES.join(', ')}) or a list of them`,
    got: `${shown(bad ?? value)}${near ? ` (did you mean "${near}"?)` : ''}`,
  };
}

/** The first keyword of `node` (a schema at `at`) holding the wrong kind of value. */
function walk(node: unknown, at: string): SchemaProblem | undefined {
  if (typeof node === 'boolean') return undefined;
  if (!isMapping(node))
    return { at: at || '(top level)', expected: 'a schema (a mapping)', got: shown(node) };
  const here = (key: string) => join(at, key);
  if ('type' in node) {
    const p = typeProblem(node.type, here('type'));
    if (p) return p;
  }
  for (const key of SCHEMA_MAPS) {
    if (!(key in node)) continue;
    const map = node[key];
    if (!isMapping(map)) return { at: here(key), expected: 'a mapping of names to schemas', got: shown(map) };
    for (const [name, inner] of Object.entries(map)) {
      const p = walk(inner, join(here(key), name));
      if (p) return p;
    }
  }
  for (const key of SCHEMA_LISTS) {
    if (!(key in node)) continue;
    const list = node[key];
    if (!Array.isArray(list) || list.length === 0)
      return { at: here(key), expected: 'a non-empty list of schemas', got: shown(list) };
    for (const [i, inner] of list.entries()) {
      const p = walk(inner, join(here(key), i));
      if (p) return p;
    }
  }
  if ('items' in node) {
    const items = node.items;
    const list = Array.isArray(items) ? items : [items];
    for (const [i, inner] of list.entries()) {
      const p = walk(inner, Array.isArray(items) ? join(here('items'), i) : here('items'));
      if (p) return p;
    }
  }
  for (const key of SUBSCHEMA) {
    if (!(key in node)) continue;
    const p = walk(node[key], here(key));
    if (p) return p;
  }
  if ('required' in node) {
    const req = node.required;
    if (!Array.isArray(req) || req.some((r) => typeof r !== 'string'))
      return { at: here('required'), expected: 'a list of property names', got: shown(req) };
  }
  if ('enum' in node && (!Array.isArray(node.enum) || node.enum.length === 0))
    return { at: here('enum'), expected: 'a non-empty list of values', got: shown(node.enum) };
  for (const key of COUNTS) {
    const v = node[key];
    if (key in node && !(Number.isInteger(v) && (v as number) >= 0))
      return { at: here(key), expected: 'a whole number, 0 or more', got: shown(v) };
  }
  for (const key of NUMBERS) {
    if (key in node && typeof node[key] !== 'number')
      return { at: here(key), expected: 'a number', got: shown(node[key]) };
  }
  if ('multipleOf' in node && !(typeof node.multipleOf === 'number' && node.multipleOf > 0))
    return { at: here('multipleOf'), expected: 'a number above 0', got: shown(node.multipleOf) };
  if ('pattern' in node) {
    const pattern = node.pattern;
    let valid = typeof pattern === 'string';
    try {
      if (valid) new RegExp(pattern as string, 'u');
    } catch {
      valid = false;
    }
    if (!valid) return { at: here('pattern'), expected: 'a valid regular expression', got: shown(pattern) };
  }
  if ('$ref' in node && typeof node.$ref !== 'string')
    return { at: here('$ref'), expected: 'a reference such as "#/$defs/finding"', got: shown(node.$ref) };
  return undefined;
}

/** What is wrong with `schema` as a JSON Schema of an answer, or undefined when nothing is. */
export async function schemaProblem(schema: unknown): Promise<SchemaProblem | undefined> {
  if (!isMapping(schema))
    return { at: '(top level)', expected: 'a JSON Schema (a YAML mapping)', got: shown(schema) };
  const problem = walk(schema, '');
  if (problem) return problem;
  const z = await loadZod();
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    return {
      at: '(top level)',
      expected: 'a JSON Schema zod can convert',
      got: `an error (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  return undefined;
}

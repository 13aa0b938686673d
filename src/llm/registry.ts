import { BUILTIN_MODELS, DEFAULT_SPEC, type ModelSpec } from './registry-data.js';

export { BUILTIN_MODELS, DEFAULT_SPEC, type ModelSpec } from './registry-data.js';

/** A lookup's answer: the spec plus which table entry (if any) supplied it. */
export interface ResolvedModel extends ModelSpec {
  /** The id that was looked up, as given. */
  id: string;
  /** The table key that matched, or undefined when defaults were used. */
  matchedKey: string | undefined;
  known: boolean;
}

export interface ModelRegistry {
  /** Exact id, then longest known prefix, then conservative defaults. Never throws. */
  lookup(model: string): ResolvedModel;
  /** Every entry (built-in merged with overrides), keyed by lower-case id. */
  entries(): ReadonlyArray<readonly [string, ModelSpec]>;
}

/** A prefix only counts when the id continues with one of these (or ends). */
const BOUNDARY = /^[-:@_ ]/;

const SPEC_FIELDS = [
  'contextWindow',
  'maxOutputTokens',
  'inputPrice',
  'outputPrice',
  'cachedInputPrice',
] as const;

/**
 * The registry: the built-in table with `overrides` (from config) merged on top.
 * An override for an id the table does not know starts from what that id would
 * resolve to (its family, or the defaults), so `{ 'gpt-4o-custom': { contextWindow: 64000 } }`
 * keeps gpt-4o's prices.
 */
export function createRegistry(overrides: Record<string, Partial<ModelSpec>> = {}): ModelRegistry {
  const table = new Map<string, ModelSpec>(Object.entries(BUILTIN_MODELS));
  for (const [rawKey, partial] of Object.entries(overrides)) {
    const key = rawKey.trim().toLowerCase();
    if (key === '') throw new Error('model override: the model id must not be empty');
    const clean = validateOverride(rawKey, partial);
    const base = table.get(key) ?? resolve(table, key).spec;
    table.set(key, { ...base, ...clean });
  }

  return {
    lookup(model: string): ResolvedModel {
      const { key, spec } = resolve(table, model);
      return { ...spec, id: model, matchedKey: key, known: key !== undefined };
    },
    entries: () => [...table.entries()],
  };
}

/** The candidates an id is tried as, most specific first. */
function candidates(model: string): string[] {
  const lower = model.trim().toLowerCase();
  // `openai/gpt-4o`, `meta-llama/llama-3.1-8b`, `hf.co/org/Qwen2.5-7B-GGUF`: keep the last segment.
  const bare = lower.slice(lower.lastIndexOf('/') + 1);
  const out = [lower, bare];
  // OpenRouter spells Anthropic versions with dots (`claude-sonnet-4.5`); Meta's ids put a
  // hyphen in (`llama-3.1-8b`). Both get the table's spelling.
  out.push(bare.replace(/^(claude-.*?)(\d)\.(\d)/, '$1$2-$3'));
  out.push(bare.replace(/^llama-(\d)/, 'llama$1'));
  return [...new Set(out.filter((c) => c !== ''))];
}

function resolve(table: Map<string, ModelSpec>, model: string): { key: string | undefined; spec: ModelSpec } {
  const tried = candidates(model);
  for (const candidate of tried) {
    const exact = table.get(candidate);
    if (exact) return { key: candidate, spec: exact };
  }
  let best: string | undefined;
  for (const candidate of tried) {
    for (const key of table.keys()) {
      if (!candidate.startsWith(key) || !BOUNDARY.test(candidate.slice(key.length))) continue;
      if (best === undefined || key.length > best.length) best = key;
    }
  }
  if (best !== undefined) return { key: best, spec: table.get(best)! };
  return { key: undefined, spec: DEFAULT_SPEC };
}

function validateOverride(id: string, partial: Partial<ModelSpec>): Partial<ModelSpec> {
  if (typeof partial !== 'object' || partial === null) {
    throw new Error(`model override '${id}': expected an object of model limits and prices`);
  }
  const clean: Partial<ModelSpec> = {};
  for (const [field, value] of Object.entries(partial)) {
    if (!(SPEC_FIELDS as readonly string[]).includes(field)) {
      throw new Error(`model override '${id}': unknown field '${field}' (known: ${SPEC_FIELDS.join(', ')})`);
    }
    if (value === undefined) continue;
    const isLimit = field === 'contextWindow' || field === 'maxOutputTokens';
    const valid =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      (isLimit ? Number.isInteger(value) && value > 0 : value >= 0);
    if (!valid) {
      const want = isLimit ? 'a positive integer' : 'a price >= 0 (US dollars per million tokens)';
      throw new Error(`model override '${id}': ${field} must be ${want}, got ${JSON.stringify(value)}`);
    }
    clean[field as (typeof SPEC_FIELDS)[number]] = value;
  }
  return clean;
}

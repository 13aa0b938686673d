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

/**
 * Ids that name a vision model whatever family they extend (`llama3.2-vision`,
 * `qwen2.5vl:7b`, `qwen3-vl`, `llava-phi3`, `pixtral-12b`, `minicpm-v`).
 */
const VISION_NAME = /vision|llava|pixtral|moondream|minicpm-v|(?:^|[^a-z])vl(?:$|[^a-z])/;

export interface ModelRegistry {
  /**
   * Exact id, then longest known prefix, then conservative defaults. Never throws.
   * `images` is the config's answer for the matched key when it gives one, else true
   * for an id that names a vision model, else the table's (absent when unknown).
   */
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
  'images',
] as const;

/**
 * The registry: the built-in table with `overrides` (from config) merged on top.
 * An override for an id the table does not know starts from what that id would
 * resolve to (its family, or the defaults), so `{ 'gpt-4o-custom': { contextWindow: 64000 } }`
 * keeps gpt-4o's prices.
 */
export function createRegistry(overrides: Record<string, Partial<ModelSpec>> = {}): ModelRegistry {
  const table = new Map<string, ModelSpec>(Object.entries(BUILTIN_MODELS));
  // Keys whose `images` the config set: that answer wins over the name and the family.
  const imagesSet = new Set<string>();
  for (const [rawKey, partial] of Object.entries(overrides)) {
    const key = rawKey.trim().toLowerCase();
    if (key === '') throw new Error('model override: the model id must not be empty');
    const clean = validateOverride(rawKey, partial);
    const base = table.get(key) ?? resolve(table, key).spec;
    table.set(key, { ...base, ...clean });
    if (clean.images !== undefined) imagesSet.add(key);
  }

  return {
    lookup(model: string): ResolvedModel {
      const { key, spec } = resolve(table, model);
      const resolved: ResolvedModel = { ...spec, id: model, matchedKey: key, known: key !== undefined };
      // A vision variant of a text family (`llama3.2-vision` finds `llama3.2`) takes images.
      if (!(key !== undefined && imagesSet.has(key)) && VISION_NAME.test(model.toLowerCase())) {
        resolved.images = true;
      }
      return resolved;
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
    if (field === 'images') {
      if (typeof value !== 'boolean') {
        throw new Error(`model override '${id}': images must be true or false, got ${JSON.stringify(value)}`);
      }
      clean.images = value;
      continue;
    }
    const isLimit = field === 'contextWindow' || field === 'maxOutputTokens';
    const valid =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      (isLimit ? Number.isInteger(value) && value > 0 : value >= 0);
    if (!valid) {
      const want = isLimit ? 'a positive integer' : 'a price >= 0 (US dollars per million tokens)';
      throw new Error(`model override '${id}': ${field} must be ${want}, got ${JSON.stringify(value)}`);
    }
    clean[field as Exclude<(typeof SPEC_FIELDS)[number], 'images'>] = value as number;
  }
  return clean;
}

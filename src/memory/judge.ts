/**
 * The ingest judge: when a model is configured, a new memory and the stored ones
 * close to it go to the cheap model, which says add / update / duplicate and
 * names the subject, attribute and value. Its answer is read tolerantly; any
 * failure (HTTP error, timeout, unreadable text, an id it was not shown) gives
 * `undefined` and the caller keeps the conservative offline decision.
 */
import { jsonrepair } from 'jsonrepair';
import { ask } from '../llm/collect.js';
import type { Provider, Usage } from '../llm/types.js';
import type { Category, Memory } from './types.js';

export interface JudgeInput {
  statement: string;
  category: Category;
  /** Stored memories close to the statement (at most a handful). */
  candidates: Memory[];
}

export interface Judgement {
  decision: 'add' | 'update' | 'duplicate';
  /** The candidate it updates or duplicates (always one of those shown). */
  id?: number;
  subject?: string;
  attribute?: string;
  value?: string;
}

export interface IngestJudge {
  judge(input: JudgeInput, signal?: AbortSignal): Promise<Judgement | undefined>;
}

import { JUDGE_MAX_CANDIDATES } from './service-queries.js';

export { JUDGE_MAX_CANDIDATES };
/** A judgement that takes longer than this is abandoned (the offline rule decides). */
export const JUDGE_TIMEOUT_MS = 20_000;

const SYSTEM = `You keep the long-term memory of an AI assistant tidy. A NEW statement is about to be stored; some STORED memories look similar. Decide:
- "update": the NEW statement gives a new value for the same attribute of the same subject as one stored memory, so that memory is no longer true (e.g. a project's port changed, a person moved to another city).
- "duplicate": the NEW statement says nothing that one stored memory does not already say.
- "add": anything else. Different subjects (another person, project, service, ticket, host…) are never the same fact, however alike the sentences are. Values that can hold at the same time (a second tool, another hobby) are "add". When unsure, answer "add".
Also name what the NEW statement is about: subject (the entity, e.g. "Heron staging API", "王磊"), attribute (e.g. "port", "早餐饮品"), value (e.g. "9191", "咖啡").
Answer with one JSON object and nothing else:
{"decision": "add" | "update" | "duplicate", "id": <id of the stored memory for update or duplicate, else null>, "subject": "...", "attribute": "...", "value": "..."}`;

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The prompt for one judgement. */
export function judgePrompt(input: JudgeInput): { system: string; user: string } {
  const stored = input.candidates
    .slice(0, JUDGE_MAX_CANDIDATES)
    .map((m) => `[id=${m.id}] (${m.category}, since ${day(m.validFrom)}) ${m.content.replace(/\s+/g, ' ')}`)
    .join('\n');
  return {
    system: SYSTEM,
    user: `STORED:\n${stored}\n\nNEW (${input.category}): ${input.statement.replace(/\s+/g, ' ')}`,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** JSON objects a reply may hold, most likely first: fenced blocks, the outermost braces, repaired. */
function objectsIn(text: string): Record<string, unknown>[] {
  const cleaned = text.replace(/<think>[\s\S]*?(?:<\/think>|$)/gi, '').trim();
  const places: string[] = [];
  for (const m of cleaned.matchAll(/```[a-zA-Z]*\s*([\s\S]*?)```/g)) if (m[1]) places.push(m[1].trim());
  const open = cleaned.indexOf('{');
  const close = cleaned.lastIndexOf('}');
  if (open >= 0 && close > open) places.push(cleaned.slice(open, close + 1));
  const out: Record<string, unknown>[] = [];
  for (const place of places) {
    for (const read of [JSON.parse, (t: string) => JSON.parse(jsonrepair(t))]) {
      try {
        const value: unknown = read(place);
        const item = Array.isArray(value) ? value[0] : value;
        if (isRecord(item)) {
          out.push(item);
          break;
        }
      } catch {
        // try the next reading
      }
    }
  }
  return out;
}

const DECISIONS: Record<string, Judgement['decision']> = {
  add: 'add',
  new: 'add',
  keep: 'add',
  insert: 'add',
  update: 'update',
  replace: 'update',
  supersede: 'update',
  duplicate: 'duplicate',
  dup: 'duplicate',
  same: 'duplicate',
};

function text(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return undefined;
  const t = value.trim();
  return t === '' || /^(null|none|n\/a)$/i.test(t) ? undefined : t.slice(0, 200);
}

/**
 * Reads the judge's reply. Undefined when there is no usable decision, or when an
 * update or duplicate names no id, or one that was not shown.
 */
export function parseJudgement(reply: string, shown: readonly number[]): Judgement | undefined {
  for (const obj of objectsIn(reply)) {
    const raw = text(obj.decision ?? obj.action ?? obj.outcome)?.toLowerCase();
    const decision = raw === undefined ? undefined : DECISIONS[raw];
    if (decision === undefined) continue;
    const out: Judgement = { decision };
    const idText = text(obj.id ?? obj.memory_id ?? obj.target);
    const id = idText === undefined ? Number.NaN : Number(idText.replace(/^#|^id=/i, ''));
    if (decision !== 'add') {
      if (!Number.isInteger(id) || !shown.includes(id)) return undefined;
      out.id = id;
    }
    const subject = text(obj.subject);
    const attribute = text(obj.attribute ?? obj.predicate);
    const value = text(obj.value ?? obj.object);
    if (subject) out.subject = subject;
    if (attribute) out.attribute = attribute;
    if (value) out.value = value;
    return out;
  }
  return undefined;
}

/** A judge on `provider` (best the cheap model). `onUsage` sees the tokens of every call. */
export function modelJudge(
  provider: Provider,
  opts: {
    timeoutMs?: number;
    onUsage?: (usage: Usage) => void;
    /** Hears why a judgement could not be had (the caller decides without it). */
    onFailure?: (why: string) => void;
  } = {},
): IngestJudge {
  return {
    async judge(input, signal) {
      if (input.candidates.length === 0) return undefined;
      const prompt = judgePrompt(input);
      const timeout = AbortSignal.timeout(opts.timeoutMs ?? JUDGE_TIMEOUT_MS);
      try {
        const completion = await ask(provider, prompt, {
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        opts.onUsage?.(completion.usage);
        const verdict = parseJudgement(
          completion.text,
          input.candidates.slice(0, JUDGE_MAX_CANDIDATES).map((m) => m.id),
        );
        if (verdict === undefined) opts.onFailure?.('its answer held no usable verdict');
        return verdict;
      } catch (err) {
        const why = timeout.aborted && !signal?.aborted ? 'no answer in time' : (err as Error).message;
        opts.onFailure?.(why);
        return undefined;
      }
    },
  };
}

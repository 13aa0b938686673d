/**
 * Background upkeep of the memory store: LLM priority tuning on the cheap model
 * (±1 level, at most three changes) and reflection (a summary memory per
 * category of recent memories, the originals demoted). Both are best-effort jobs
 * the agent runs after turns; neither ever blocks one.
 */
import { complete } from '../llm/collect.js';
import type { Provider, Usage } from '../llm/types.js';
import type { MemoryService } from './service.js';
import { liveMemories } from './service-queries.js';
import { parseTuning, REFLECTION_TAG, reflect, TUNING_MAX_MEMORIES, tuningPrompt } from './tune.js';
import type { Memory } from './types.js';

export interface TuningResult {
  changed: Array<{ id: number; from: number; to: number }>;
  usage: Usage;
}

/** Live memories of the scopes, most important and most recent first (what tuning may touch). */
function tunable(service: MemoryService, scopes: readonly string[]): Memory[] {
  const now = service.repo.now();
  return liveMemories(service.repo)
    .filter((m) => scopes.includes(m.scope) && (m.expiresAt === null || m.expiresAt > now))
    .sort((a, b) => a.priority - b.priority || b.createdAt - a.createdAt)
    .slice(0, TUNING_MAX_MEMORIES);
}

/**
 * Asks `provider` which priorities to nudge given the recent `topics`, and applies
 * the (validated, clamped) answer. A raised memory restarts its age decay.
 */
export async function tunePriorities(
  service: MemoryService,
  provider: Provider,
  topics: string,
  opts: { scopes: readonly string[]; signal?: AbortSignal },
): Promise<TuningResult> {
  const memories = tunable(service, opts.scopes);
  if (memories.length === 0 || topics.trim() === '') {
    return { changed: [], usage: { inputTokens: 0, outputTokens: 0 } };
  }
  const prompt = tuningPrompt(topics, memories);
  const completion = await complete(
    provider,
    {
      messages: [
        { role: 'system', parts: [{ type: 'text', text: prompt.system }] },
        { role: 'user', parts: [{ type: 'text', text: prompt.user }] },
      ],
      temperature: 0,
    },
    opts.signal,
  );
  const before = new Map(memories.map((m) => [m.id, m.priority]));
  const changed: TuningResult['changed'] = [];
  for (const t of parseTuning(completion.text, memories)) {
    service.repo.setPriority(t.id, t.priority, { resetAge: t.resetAge });
    changed.push({ id: t.id, from: before.get(t.id) ?? t.priority, to: t.priority });
  }
  return { changed, usage: completion.usage };
}

export interface ReflectionResult {
  summaries: Memory[];
  demoted: number;
}

/**
 * Reflection: per scope and category, recent memories (≥ 2) are summarised into
 * one HIGH, importance-5 memory that supersedes the previous summary of the same
 * scope and category; the originals lose one importance point. A summary that
 * already exists (same text) is not added twice.
 */
export async function reflectMemories(
  service: MemoryService,
  now = service.repo.now(),
): Promise<ReflectionResult> {
  const live = liveMemories(service.repo);
  const reflections = reflect(live, now);
  const summaries: Memory[] = [];
  let demoted = 0;
  for (const r of reflections) {
    const same = (m: Memory) => m.scope === r.summary.scope && m.category === r.category;
    const previous = live.filter((m) => same(m) && m.tags.includes(REFLECTION_TAG));
    const newest = Math.max(
      ...live.filter((m) => same(m) && !m.tags.includes(REFLECTION_TAG)).map((m) => m.createdAt),
    );
    // Nothing new since the last summary of this group: leave it (and its originals) alone.
    if (previous.some((p) => p.createdAt >= newest)) continue;
    const result = await service.remember(r.summary);
    if (result.outcome === 'duplicate') continue;
    summaries.push(result.memory);
    for (const old of previous) {
      // The ingest may already have superseded it (an update of the same summary).
      if (old.id !== result.memory.id && service.repo.get(old.id)?.validTo === null) {
        service.repo.supersede(old.id, result.memory.id);
      }
    }
    for (const id of r.demote) {
      const m = service.repo.get(id);
      if (m === undefined || m.importance <= 1) continue;
      service.repo.update(id, { importance: m.importance - 1 });
      demoted += 1;
    }
  }
  return { summaries, demoted };
}

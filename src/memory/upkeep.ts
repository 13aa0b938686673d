/**
 * Background upkeep of the memory store on the cheap model: priority tuning
 * (±1 level, at most three changes, pinned memories never lowered) and
 * reflection (a short summary of each cluster of related recent memories, linked
 * to its sources, never outranking them; unpinned sources demoted once). Both
 * are best-effort jobs the agent runs after turns; neither ever blocks one.
 */
import { ask } from '../llm/collect.js';
import type { Provider, Usage } from '../llm/types.js';
import {
  type Cluster,
  findClusters,
  isReflection,
  parseSummary,
  reflectionPrompt,
  summaryMemory,
} from './reflect.js';
import { contentHash, type MemoryRepo } from './repo.js';
import { liveMemories } from './service-queries.js';
import { recordSources, sourcesOf } from './sources.js';
import { parseTuning, TUNING_MAX_MEMORIES, tuningPrompt } from './tune.js';
import type { Embedder, Memory } from './types.js';

/** What upkeep works on: a memory repository and its embedder (MemoryService has both). */
export interface UpkeepTarget {
  repo: MemoryRepo;
  embedder: Embedder;
}

/** Reflection asks the model about at most this many clusters per run. */
export const REFLECT_MAX_CALLS = 5;

export interface TuningResult {
  changed: Array<{ id: number; from: number; to: number }>;
  usage: Usage;
}

/** Live memories of the scopes, most important and most recent first (what tuning may touch). */
function tunable(service: UpkeepTarget, scopes: readonly string[]): Memory[] {
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
  service: UpkeepTarget,
  provider: Provider,
  topics: string,
  opts: { scopes: readonly string[]; signal?: AbortSignal },
): Promise<TuningResult> {
  const memories = tunable(service, opts.scopes);
  if (memories.length === 0 || topics.trim() === '') {
    return { changed: [], usage: { inputTokens: 0, outputTokens: 0 } };
  }
  const prompt = tuningPrompt(topics, memories);
  const completion = await ask(provider, prompt, { signal: opts.signal });
  const before = new Map(memories.map((m) => [m.id, m.priority]));
  const changed: TuningResult['changed'] = [];
  for (const t of parseTuning(completion.text, memories)) {
    // Re-read: the memory may have been pinned or removed while the model answered.
    const current = service.repo.get(t.id);
    if (current === undefined || current.deletedAt !== null) continue;
    if (current.pinned && t.priority > current.priority) continue;
    service.repo.setPriority(t.id, t.priority, { resetAge: t.resetAge });
    changed.push({ id: t.id, from: before.get(t.id) ?? t.priority, to: t.priority });
  }
  return { changed, usage: completion.usage };
}

export interface ReflectionResult {
  /** The summaries stored by this run. */
  summaries: Memory[];
  /** Source memories that lost one importance point. */
  demoted: number;
  /** Model calls made, and their usage. */
  calls: number;
  usage: Usage;
  /** Why the run stopped early: the model failed (the remaining clusters wait for the next run). */
  error?: string;
}

export interface ReflectOptions {
  /** The cheap model that writes the summaries; without one, reflection does nothing. */
  provider?: Provider;
  now?: number;
  signal?: AbortSignal;
}

/** A live summary and the memories it was made from. */
interface Summary {
  memory: Memory;
  sources: Set<number>;
}

function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  if (a.cachedInputTokens !== undefined || b.cachedInputTokens !== undefined) {
    sum.cachedInputTokens = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  }
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined) {
    sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  }
  return sum;
}

function liveSummaries(service: UpkeepTarget, live: Memory[]): Summary[] {
  const summaries = live.filter(isReflection);
  const sources = sourcesOf(
    service.repo.db,
    summaries.map((m) => m.id),
  );
  return summaries.map((memory) => ({ memory, sources: new Set(sources.get(memory.id) ?? []) }));
}

/**
 * The earlier summary of the same cluster: same scope and category, and its
 * sources cover at least half of the smaller of the two; the largest overlap
 * wins, then the newest.
 */
function previousSummary(cluster: Cluster, summaries: Summary[]): Summary | undefined {
  let best: { summary: Summary; overlap: number } | undefined;
  for (const summary of summaries) {
    const { memory, sources } = summary;
    if (memory.scope !== cluster.scope || memory.category !== cluster.category) continue;
    const overlap = cluster.members.filter((m) => sources.has(m.id)).length;
    if (overlap === 0 || overlap * 2 < Math.min(sources.size, cluster.members.length)) continue;
    if (!best || overlap > best.overlap || (overlap === best.overlap && memory.id > best.summary.memory.id)) {
      best = { summary, overlap };
    }
  }
  return best?.summary;
}

/** Asks the model for the cluster's summary text; undefined for NONE or an unusable answer. */
async function askSummary(
  provider: Provider,
  cluster: Cluster,
  signal: AbortSignal | undefined,
): Promise<{ content: string | undefined; usage: Usage }> {
  const prompt = reflectionPrompt(cluster);
  const completion = await ask(provider, prompt, { signal: signal });
  return { content: parseSummary(completion.text), usage: completion.usage };
}

async function embedOrSkip(service: UpkeepTarget, text: string): Promise<Float32Array | undefined> {
  try {
    const [vector] = await service.embedder.embed([text]);
    return vector?.length === service.embedder.dimensions ? vector : undefined;
  } catch {
    return undefined; // stored without a vector; re-embedding adds it later
  }
}

/**
 * Stores a cluster's summary in one transaction: unpinned sources not already
 * summarised by `previous` lose one importance point (not below 1), the summary
 * is added (through the repository, so the ingest can never merge it into one of
 * its sources), linked to its sources, and supersedes `previous`. Pinned sources
 * are never modified. Undefined when the text adds nothing (it equals a stored
 * memory of the scope).
 */
async function storeSummary(
  service: UpkeepTarget,
  cluster: Cluster,
  content: string,
  previous: Summary | undefined,
): Promise<{ summary: Memory; demoted: number } | undefined> {
  const vector = await embedOrSkip(service, content);
  const { repo } = service;
  return repo.db
    .transaction(() => {
      if (repo.findByHash(contentHash(content), cluster.scope) !== undefined) return undefined;
      const current = repo.getMany(cluster.members.map((m) => m.id));
      // A source changed meanwhile (removed, replaced): the summary would be stale.
      if (
        current.length !== cluster.members.length ||
        current.some((m) => m.deletedAt !== null || m.validTo !== null)
      ) {
        return undefined;
      }
      const importance = new Map<number, number>();
      let demoted = 0;
      for (const member of current) {
        let value = member.importance;
        if (!member.pinned && value > 1 && !previous?.sources.has(member.id)) {
          value = repo.update(member.id, { importance: value - 1 }).importance;
          demoted += 1;
        }
        importance.set(member.id, value);
      }
      const members = { ...cluster, members: current };
      const fields = summaryMemory(members, content, (m) => importance.get(m.id) ?? m.importance);
      const summary = repo.add({
        ...fields,
        ...(vector === undefined ? {} : { embedding: vector, embedder: service.embedder.id }),
      });
      recordSources(
        repo.db,
        summary.id,
        cluster.members.map((m) => m.id),
      );
      if (previous !== undefined && repo.get(previous.memory.id)?.validTo === null) {
        repo.supersede(previous.memory.id, summary.id);
      }
      return { summary, demoted };
    })
    .immediate();
}

/**
 * Reflection: per scope and category, each cluster of at least three related
 * recent memories (see reflect.ts) is summarised by the cheap model in one short
 * memory tagged `reflection`, which supersedes the earlier summary of the same
 * cluster. A cluster whose memories are all summarised already is skipped
 * without a model call. Without a provider nothing happens (offline, no
 * summary). A failing model stops the run and is reported in `error`; an abort
 * through `signal` throws.
 */
export async function reflectMemories(
  service: UpkeepTarget,
  opts: ReflectOptions = {},
): Promise<ReflectionResult> {
  const result: ReflectionResult = {
    summaries: [],
    demoted: 0,
    calls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
  };
  const { provider, signal } = opts;
  if (provider === undefined) return result;
  const now = opts.now ?? service.repo.now();
  const live = liveMemories(service.repo);
  const summaries = liveSummaries(service, live);
  for (const cluster of findClusters(live, now)) {
    const previous = previousSummary(cluster, summaries);
    if (previous && cluster.members.every((m) => previous.sources.has(m.id))) continue;
    if (result.calls >= REFLECT_MAX_CALLS) break;
    let answer: { content: string | undefined; usage: Usage };
    try {
      result.calls += 1;
      answer = await askSummary(provider, cluster, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      result.error = err instanceof Error ? err.message : String(err);
      break;
    }
    result.usage = addUsage(result.usage, answer.usage);
    if (answer.content === undefined) continue;
    const stored = await storeSummary(service, cluster, answer.content, previous);
    if (stored === undefined) continue;
    result.summaries.push(stored.summary);
    result.demoted += stored.demoted;
    // Later clusters of this run see the new summary in place of the one it replaced.
    if (previous) summaries.splice(summaries.indexOf(previous), 1);
    summaries.push({ memory: stored.summary, sources: new Set(cluster.members.map((m) => m.id)) });
  }
  return result;
}

/**
 * The agent's side of the context engine: keeps a session's L2 pairs and L3
 * summaries in the store, turns its transcript into `buildContext` input for
 * every model call, calibrates the token estimate from what the provider reports,
 * and runs summaries on the cheap model in the background when L2 overflows.
 */
import { buildContext } from '../context/build.js';
import { BuildMemo } from '../context/memo.js';
import { summarizePairs, summarizeToolChain, type ToolCallRecord } from '../context/summarize.js';
import { estimateMessages, estimateText, type TokenCalibrator } from '../context/tokens.js';
import type { BuildResult, HistoryPair, Summaries } from '../context/types.js';
import { costUsd } from '../llm/cost.js';
import { withImagesDescribed } from '../llm/images.js';
import type { Message, ModelInfo, Part, Provider, Usage } from '../llm/types.js';
import type { Store } from '../store/index.js';
import type { PlanItem } from '../tools/types.js';
import { headAndTail } from '../util/head-tail.js';
import { afterCompaction, recentWindow } from './context-window.js';
import { usageRow } from './record.js';
import { sessionState } from './session-state.js';

export const STATE_PAIRS = 'l2_pairs';
export const STATE_SUMMARIES = 'summaries';
export const STATE_COMPACTED = 'compacted_users';

/** What a manual compaction did: turns folded into the summary, and the context's estimate before and after. */
export interface CompactResult {
  turns: number;
  tokensBefore: number;
  tokensAfter: number;
}
/** L2 holds at most this many pairs; on overflow the oldest go to the L3 summary. */
export const L2_CAPACITY = 50;
export const L2_KEEP = 20;
/** Characters of each end of a long user message or answer kept in its L2 pair. */
export const PAIR_END_CHARS = 4_000;
/** User turns of raw transcript sent as L1 (the builder may trim further). */
export const L1_TURNS = 10;

/** Share of the window at which to trim, ask for brevity, and stop offering tools. */
export interface Thresholds {
  compressAt: number;
  briefAt: number;
  finalAt: number;
}

/**
 * Small local models get Nephele's 8K thresholds; big windows trim at 80%. A
 * profile's own thresholds (config `compress_at`, `brief_at`, `final_at`) win.
 */
export function thresholdsFor(info: Pick<ModelInfo, 'contextWindow' | 'contextThresholds'>): Thresholds {
  const base: Thresholds =
    info.contextWindow <= 16_384
      ? { compressAt: 0.6, briefAt: 0.7, finalAt: 0.87 }
      : { compressAt: 0.8, briefAt: 0.9, finalAt: 0.95 };
  const own = info.contextThresholds ?? {};
  return {
    compressAt: own.compressAt ?? base.compressAt,
    briefAt: own.briefAt ?? base.briefAt,
    finalAt: own.finalAt ?? base.finalAt,
  };
}

export interface SummaryJob {
  text: string;
  usage: Usage;
  model: ModelInfo;
}

/** Summaries on the cheap model: of overflowing pairs (semantic) and of their tool calls (tool chain). */
export interface Summarizer {
  pairs(previous: string | undefined, pairs: HistoryPair[], signal: AbortSignal): Promise<SummaryJob>;
  toolChain(previous: string | undefined, calls: ToolCallRecord[], signal: AbortSignal): Promise<SummaryJob>;
}

/** What `SessionContext.settle` did: the background jobs it had to stop, by label. */
export interface Settled {
  stopped: string[];
}

function textOf(parts: readonly Part[], kinds: ReadonlySet<Part['type']>): string {
  return parts
    .flatMap((p) => (kinds.has(p.type) && (p.type === 'text' || p.type === 'thinking') ? [p.text] : []))
    .join('\n')
    .trim();
}

const TEXT = new Set<Part['type']>(['text']);
const REASONING = new Set<Part['type']>(['text', 'thinking']);
const PATH_KEYS = ['path', 'paths', 'from', 'to', 'file', 'a', 'b'];

const cutNote = (cut: number): string => `\n… [${cut} chars cut here; history_search reads them]\n`;

/** The L2 pair of a finished turn: its opening message, final answer, tool-round reasoning and files. */
export function pairFromTurn(turnId: string, messages: readonly Message[]): HistoryPair | undefined {
  const user = messages.find((m) => m.role === 'user');
  const assistants = messages.filter((m) => m.role === 'assistant');
  const final = assistants.at(-1);
  if (!user || !final) return undefined;
  const reasoning = assistants
    .slice(0, -1)
    .map((m) => textOf(m.parts, REASONING))
    .filter(Boolean)
    .join('\n');
  const files = new Set<string>();
  for (const m of assistants) {
    for (const p of m.parts) {
      if (p.type !== 'tool-call') continue;
      for (const key of PATH_KEYS) {
        const v = p.args[key];
        for (const f of Array.isArray(v) ? v : [v]) if (typeof f === 'string' && f.length < 300) files.add(f);
      }
    }
  }
  return {
    turnId,
    // A pair is a reminder of an earlier turn (the transcript keeps it whole), held
    // in memory and stored each turn: a pasted megabyte is kept by its two ends.
    user: headAndTail(textOf(user.parts, TEXT), PAIR_END_CHARS, PAIR_END_CHARS, cutNote),
    assistant: headAndTail(textOf(final.parts, TEXT), PAIR_END_CHARS, PAIR_END_CHARS, cutNote),
    reasoning: reasoning.length > 2000 ? `${reasoning.slice(0, 2000)}…` : reasoning,
    files: [...files].slice(0, 20),
  };
}

function resumeText(items: readonly PlanItem[] | undefined, title?: string): string | undefined {
  if (!items?.some((i) => i.status !== 'completed')) return undefined;
  const marks = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;
  const head = title ? `${title}\n` : '';
  return `${head}${items.map((i) => `${marks[i.status]} ${i.content}`).join('\n')}`;
}

/** Summaries on `cheap` (none without a cheap model), as `SessionContextOptions` takes them. */
export function cheapSummarizer(cheap: Provider | undefined): { summarize?: Summarizer } {
  if (!cheap) return {};
  return {
    summarize: {
      pairs: async (previous, pairs, signal) => ({
        ...(await summarizePairs(cheap, { ...(previous ? { previous } : {}), pairs, signal })),
        model: cheap.info,
      }),
      toolChain: async (previous, calls, signal) => ({
        ...(await summarizeToolChain(cheap, { ...(previous ? { previous } : {}), calls, signal })),
        model: cheap.info,
      }),
    },
  };
}

export interface SessionContextOptions {
  store: Store;
  sessionId: string;
  system: string;
  instructions: string[];
  calibrator: TokenCalibrator;
  /** A summarizer on the cheap model; without one, overflowing pairs are only kept in the store. */
  summarize?: Summarizer;
  l1Turns?: number;
}

export class SessionContext {
  private pairs: HistoryPair[];
  private summaries: Summaries;
  private readonly jobs = new Map<Promise<void>, string>();
  /** Aborts every background job (`settle` when they overrun their grace). */
  private background = new AbortController();
  /** Requests in a row that were trimmed and still did not fit (the compaction breaker). */
  failedCompactions = 0;
  /** The long-term memories recalled for the current turn (L0). */
  memories = '';
  /** The skills block for the current turn (L0). */
  skills = '';
  /** Background summaries that landed since the last request (reported as compactions). */
  private landed: Array<{ tokensBefore: number; tokensAfter: number }> = [];
  /** User messages folded into L3 by a manual compaction (L1 starts after them). */
  private compactedUsers: number;
  /** Work kept from one request's context to the next (each step only adds to the transcript). */
  private readonly memo = new BuildMemo();

  constructor(private readonly opts: SessionContextOptions) {
    const state = sessionState(opts.store, opts.sessionId);
    this.pairs = state.get(STATE_PAIRS) ?? [];
    this.summaries = state.get(STATE_SUMMARIES) ?? {};
    this.compactedUsers = state.get(STATE_COMPACTED) ?? 0;
  }

  /** The system prompt for the following requests (a work-mode switch rewrites it). */
  useSystem(system: string): void {
    this.opts.system = system;
  }

  /** Reads the pairs and summaries again (another runner worked on the session meanwhile). */
  reload(): void {
    const state = sessionState(this.opts.store, this.opts.sessionId);
    this.pairs = state.get(STATE_PAIRS) ?? [];
    this.summaries = state.get(STATE_SUMMARIES) ?? {};
    this.compactedUsers = state.get(STATE_COMPACTED) ?? 0;
  }

  /** Builds the messages of one model call for `info`'s window. */
  build(history: readonly Message[], info: ModelInfo): BuildResult {
    const { store, sessionId } = this.opts;
    const state = sessionState(store, sessionId);
    const todo = state.get('todos');
    const plan = state.get('plan');
    const resume = [resumeText(todo?.items), resumeText(plan?.items, plan?.title)]
      .filter(Boolean)
      .join('\n\n');
    const window = recentWindow(afterCompaction(history, this.compactedUsers), this.opts.l1Turns ?? L1_TURNS);
    // A text-only model is sent no images (the wire describes them): do not count them.
    const recent = info.images === false ? window.map((m) => withImagesDescribed(m, info.model)) : window;
    // Pairs of turns still inside the L1 window would repeat them.
    const older = this.pairs.slice(0, Math.max(0, this.pairs.length - ((this.opts.l1Turns ?? L1_TURNS) - 1)));
    return buildContext(
      {
        system: this.opts.system,
        instructions: this.opts.instructions,
        ...(resume ? { resume } : {}),
        ...(this.memories ? { memories: this.memories } : {}),
        ...(this.skills ? { skills: this.skills } : {}),
        summaries: this.summaries,
        pairs: older,
        recent,
      },
      {
        contextWindow: info.contextWindow,
        maxOutput: info.maxOutputTokens,
        trimAt: thresholdsFor(info).compressAt,
      },
      this.opts.calibrator.estimator(info.model),
      this.memo,
    );
  }

  /** Calibrates the estimator from the prompt tokens the provider reported for `built`. */
  observe(info: ModelInfo, built: BuildResult, reportedInputTokens: number): void {
    this.opts.calibrator.observe(info.model, estimateMessages(built.messages), reportedInputTokens);
  }

  /** Records a finished turn as an L2 pair; on overflow, summarizes the oldest in the background. */
  finishTurn(turnId: string, turnMessages: readonly Message[]): void {
    const pair = pairFromTurn(turnId, turnMessages);
    if (!pair) return;
    this.pairs = [...this.pairs, pair];
    let overflow: HistoryPair[] = [];
    if (this.pairs.length >= L2_CAPACITY) {
      overflow = this.pairs.slice(0, this.pairs.length - L2_KEEP);
      this.pairs = this.pairs.slice(-L2_KEEP);
    }
    sessionState(this.opts.store, this.opts.sessionId).set(STATE_PAIRS, this.pairs);
    if (overflow.length > 0 && this.opts.summarize) {
      this.track(
        this.summarizeOverflow(overflow, this.background.signal).then(
          (landed) => void this.landed.push(landed),
          (err: unknown) => {
            // Not summarized (the cheap model failed, or the job was stopped): the pairs go
            // back to L2, so the next turn tries again and nothing drops out of the context.
            this.pairs = [...overflow, ...this.pairs];
            sessionState(this.opts.store, this.opts.sessionId).set(STATE_PAIRS, this.pairs);
            throw err;
          },
        ),
        'summary',
      );
    }
  }

  /**
   * A manual compaction (`/compact`): folds every L2 pair into the L3 summaries now, on
   * the cheap model, and starts L1 after the transcript so far, so the next request
   * carries the summary instead of the raw turns. Nothing changes when it fails.
   */
  async compactNow(history: readonly Message[], signal: AbortSignal): Promise<CompactResult> {
    if (!this.opts.summarize) throw new Error('there is no model to write the summary with');
    await this.settled(); // a background summary in flight lands first
    const pairs = this.pairs;
    const users = history.filter((m) => m.role === 'user').length;
    if (pairs.length === 0 || users <= this.compactedUsers)
      return { turns: 0, tokensBefore: 0, tokensAfter: 0 };
    const raw = estimateMessages(recentWindow(afterCompaction(history, this.compactedUsers), L1_TURNS));
    const landed = await this.summarizeOverflow(pairs, signal);
    this.pairs = this.pairs.filter((p) => !pairs.includes(p));
    this.compactedUsers = users;
    const state = sessionState(this.opts.store, this.opts.sessionId);
    state.set(STATE_PAIRS, this.pairs);
    state.set(STATE_COMPACTED, users);
    return { turns: pairs.length, tokensBefore: landed.tokensBefore + raw, tokensAfter: landed.tokensAfter };
  }

  private async summarizeOverflow(
    overflow: HistoryPair[],
    signal: AbortSignal,
  ): Promise<{ tokensBefore: number; tokensAfter: number }> {
    const { store, sessionId } = this.opts;
    const summarize = this.opts.summarize!;
    const turns = [...new Set(overflow.map((p) => p.turnId))];
    const calls: ToolCallRecord[] = store.toolCalls
      .listForTurns(sessionId, turns)
      .map((c) => ({ name: c.name, args: c.args, ok: c.state === 'completed', output: c.output ?? '' }));
    const [semantic, chain] = await Promise.all([
      summarize.pairs(this.summaries.semantic, overflow, signal),
      calls.length > 0 ? summarize.toolChain(this.summaries.toolChain, calls, signal) : undefined,
    ]);
    this.summaries = {
      ...this.summaries,
      semantic: semantic.text,
      ...(chain ? { toolChain: chain.text } : {}),
    };
    const landed = {
      tokensBefore: overflow.reduce(
        (n, p) => n + estimateText(`${p.user}\n${p.reasoning}\n${p.assistant}`),
        0,
      ),
      tokensAfter: estimateText(semantic.text) + (chain ? estimateText(chain.text) : 0),
    };
    sessionState(store, sessionId).set(STATE_SUMMARIES, this.summaries);
    this.recordUsage('background:summary', semantic.model, semantic.usage);
    if (chain) this.recordUsage('background:tool-chain', chain.model, chain.usage);
    return landed;
  }

  /** Counts a background job's tokens in the session's usage. */
  recordUsage(turnId: string, model: ModelInfo, usage: Usage): void {
    this.opts.store.usage.record(
      usageRow(this.opts.sessionId, turnId, { model, usage, costUsd: costUsd(model, usage) }),
    );
  }

  /** The signal background jobs run under: aborted when `settle` stops them. */
  get backgroundSignal(): AbortSignal {
    return this.background.signal;
  }

  /** Runs a background job; failures are kept out of the turn (the pairs stay in the store). */
  track(job: Promise<void>, label: string): void {
    const tracked = job.catch(() => {}).finally(() => this.jobs.delete(tracked));
    this.jobs.set(tracked, label);
  }

  /** Resolves when every background job has finished (tests, clean shutdown). */
  async settled(): Promise<void> {
    while (this.jobs.size > 0) await Promise.all([...this.jobs.keys()]);
  }

  /**
   * Waits for the background jobs up to `graceMs`, then stops the rest (their
   * signal aborts; their work is picked up by a later turn) and waits up to
   * `graceMs` more for them to wind down. Later jobs run under a fresh signal.
   */
  async settle(graceMs: number): Promise<Settled> {
    if (this.jobs.size === 0) return { stopped: [] };
    if (await within(this.settled(), graceMs)) return { stopped: [] };
    const stopped = [...new Set(this.jobs.values())];
    this.background.abort(new Error('background work stopped: it ran past its grace period'));
    await within(this.settled(), graceMs);
    this.background = new AbortController();
    return { stopped };
  }

  /** Summaries that landed since the last call, for `compaction` events. */
  takeLanded(): Array<{ tokensBefore: number; tokensAfter: number }> {
    return this.landed.splice(0);
  }

  get summary(): Summaries {
    return this.summaries;
  }

  get pairCount(): number {
    return this.pairs.length;
  }
}

/** True when `work` settles within `ms`, false when the time ran out first. */
function within(work: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void work.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

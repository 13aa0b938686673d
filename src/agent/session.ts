import { randomUUID } from 'node:crypto';
import type { Message, Provider, Usage } from '../llm/types.js';
import type { SessionRow, Store } from '../store/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { AgentEvent, StopReason } from './events.js';
import { runTurn, type TurnInput, type TurnResult } from './loop.js';

export interface SessionDeps {
  provider: Provider;
  tools: ToolRegistry;
  store: Store;
  systemPrompt: string;
  maxIterations: number;
  maxParallelTools: number;
  maxOutputChars?: number;
  allowedRoots?: string[];
}

export interface PromptOptions {
  signal?: AbortSignal;
  images?: TurnInput['images'];
}

/**
 * A conversation. `prompt` runs a turn (and any follow-ups queued meanwhile)
 * and yields its events; `steer` and `followUp` queue messages while it runs.
 */
export class Session {
  private readonly steering: string[] = [];
  private readonly followUps: string[] = [];
  private running = false;
  private readonly callIds = new Set<string>();

  constructor(
    private readonly deps: SessionDeps,
    readonly row: SessionRow,
    /** The transcript as the model sees it (no system message). */
    readonly history: Message[],
  ) {
    for (const m of history) for (const p of m.parts) if (p.type === 'tool-call') this.callIds.add(p.id);
  }

  get id(): string {
    return this.row.id;
  }

  get busy(): boolean {
    return this.running;
  }

  /** Queues a message that pre-empts the remaining tool calls; false when no turn is running. */
  steer(text: string): boolean {
    if (!this.running) return false;
    this.steering.push(text);
    return true;
  }

  /** Queues a message that starts a new turn when the current one ends; false when idle. */
  followUp(text: string): boolean {
    if (!this.running) return false;
    this.followUps.push(text);
    return true;
  }

  async *prompt(input: string, opts: PromptOptions = {}): AsyncGenerator<AgentEvent> {
    if (this.running)
      throw new Error(`session ${this.id} is busy: use steer() or followUp() while a turn runs`);
    this.running = true;
    const signal = opts.signal ?? new AbortController().signal;
    const usage: Usage = { inputTokens: 0, outputTokens: 0 };
    let cost = 0;
    let last: { reason: StopReason; text: string; message?: string } = { reason: 'completed', text: '' };
    try {
      if (!this.row.title && this.history.length === 0) {
        this.deps.store.sessions.update(this.id, { title: input.replace(/\s+/g, ' ').trim().slice(0, 80) });
      }
      let next: TurnInput | undefined = { text: input, images: opts.images };
      while (next) {
        const result: TurnResult = yield* runTurn(
          {
            ...this.deps,
            sessionId: this.id,
            cwd: this.row.cwd,
            history: this.history,
            steering: this.steering,
            callIds: this.callIds,
            signal,
          },
          next,
          `t_${randomUUID().slice(0, 12)}`,
        );
        usage.inputTokens += result.usage.inputTokens;
        usage.outputTokens += result.usage.outputTokens;
        cost += result.costUsd;
        last = result;
        const queued = this.followUps.shift();
        next = queued !== undefined && result.reason !== 'cancelled' ? { text: queued } : undefined;
      }
      const leftover = this.saveLeftovers();
      yield {
        type: 'done',
        sessionId: this.id,
        reason: last.reason,
        text: last.text,
        message: leftover ? [last.message, leftover].filter(Boolean).join(' ') : last.message,
        usage,
        costUsd: cost,
      };
    } finally {
      this.running = false;
    }
  }

  /** Messages queued but never sent (the turn was cancelled) are kept in the transcript. */
  private saveLeftovers(): string | undefined {
    const rest = [...this.steering.splice(0), ...this.followUps.splice(0)];
    if (rest.length === 0) return undefined;
    const turnId = `t_${randomUUID().slice(0, 12)}`;
    for (const text of rest) {
      const parts = [{ type: 'text' as const, text }];
      this.deps.store.messages.append(this.id, { turnId, role: 'user', parts });
      this.history.push({ role: 'user', parts });
    }
    return `${rest.length} queued message(s) were saved to the session for the next turn.`;
  }
}

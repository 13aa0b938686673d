/**
 * Running turns of the session the screen shows: its events go to the transcript;
 * approvals and questions wait in a queue and are asked one at a time in place of the
 * input box (events keep flowing meanwhile: a sub-agent's lines still move); typing
 * while a turn runs queues steering messages and follow-ups.
 */
import type { Component } from '@mariozechner/pi-tui';
import type { AgentEvent, Session } from '../../agent/index.js';
import { alwaysLabel, approvalQuestion } from './approval-words.js';
import type { ImageAttachment } from './input.js';
import { ApprovalView, AskView, PickView } from './prompts.js';
import type { Transcript } from './transcript.js';

type ApprovalRequest = Extract<AgentEvent, { type: 'approval_request' }>;
type Question = Extract<AgentEvent, { type: 'question' }>;

export interface TurnsDeps {
  changed(): void;
  refreshStatus(): void;
  /** The lines shown above an approval question (the diff, or the command). */
  approvalBody(e: ApprovalRequest): Promise<string>;
  show(view: Component): void;
  restore(): void;
  /** Shows the messages queued while the turn runs (above the input box), or none. */
  queued(items: readonly Queued[]): void;
  /** The turn (and its follow-ups) ended: `busy` is false again. */
  ended(): void;
}

/** A message typed while a turn runs, not yet given to the model. */
export interface Queued {
  text: string;
  kind: 'steering' | 'follow-up';
}

/** The choice of a question's list that lets the user type an answer instead. */
const OWN_ANSWER = '\u0000own';

export class Turns {
  private abort: AbortController | undefined;
  private running: Promise<void> | undefined;
  /** Approvals and questions not yet asked, in order. */
  private readonly asks: Array<() => Promise<void>> = [];
  private asking = false;
  /** Typed while the turn runs; each goes into the transcript when the model gets it. */
  private readonly pending: Queued[] = [];

  constructor(
    public session: Session,
    private readonly transcript: Transcript,
    private readonly deps: TurnsDeps,
  ) {}

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Runs one prompt (and the follow-ups queued while it runs). */
  run(text: string, images: ImageAttachment[] = []): Promise<void> {
    const note =
      images.length > 0 ? `(${images.length} image${images.length === 1 ? '' : 's'} attached)` : undefined;
    this.transcript.user(text, note);
    this.abort = new AbortController();
    const signal = this.abort.signal;
    this.running = (async () => {
      try {
        const opts = images.length > 0 ? { signal, images } : { signal };
        let first = true;
        for await (const e of this.session.prompt(text, opts)) {
          if (e.type === 'turn_start' && !first) this.delivered('follow-up', e.input);
          if (e.type === 'turn_start') first = false;
          if (e.type === 'steering') this.delivered('steering', e.text);
          if (e.type === 'done') this.unsent();
          this.transcript.event(e);
          if (e.type === 'approval_request') this.enqueue(() => this.approve(e));
          else if (e.type === 'question') this.enqueue(() => this.answer(e));
          else if (changesStatus(e)) this.deps.refreshStatus();
        }
      } catch (e) {
        this.transcript.print(`error: ${e instanceof Error ? e.message : String(e)}`, 'error');
      } finally {
        this.running = undefined;
        this.abort = undefined;
        this.asks.length = 0;
        this.deps.restore();
        this.deps.ended();
        this.deps.refreshStatus();
      }
    })();
    // Now `busy`: the status line says the turn is working (and that Esc interrupts it).
    this.deps.refreshStatus();
    return this.running;
  }

  /** Esc: the running turn stops (the model's stream is cancelled). */
  interrupt(): void {
    this.abort?.abort();
  }

  /** Waits for a running turn to end. */
  async settle(): Promise<void> {
    await this.running;
  }

  /**
   * A message typed while the turn runs: steering (Enter, given to the model before its
   * next call) or a follow-up (Alt+Enter, a turn of its own after this one). It waits
   * above the input box and goes into the transcript where the model gets it.
   */
  queue(text: string, kind: 'steering' | 'follow-up'): void {
    const ok = kind === 'steering' ? this.session.steer(text) : this.session.followUp(text);
    if (ok) {
      this.pending.push({ text, kind });
      this.deps.queued(this.pending);
    } else this.transcript.print('The turn has just ended: send the message again.', 'error');
    this.deps.changed();
  }

  /** The model got a queued message: into the transcript, here. */
  private delivered(kind: Queued['kind'], text: string): void {
    const at = this.pending.findIndex((q) => q.kind === kind && q.text === text);
    if (at < 0) return;
    this.pending.splice(at, 1);
    this.deps.queued(this.pending);
    this.transcript.user(text, `(${kind})`);
  }

  /** The turn was cancelled before the model got these: the session keeps them for the next turn. */
  private unsent(): void {
    for (const q of this.pending.splice(0))
      this.transcript.user(q.text, '(not sent: the model reads it with your next message)');
    this.deps.queued(this.pending);
  }

  private enqueue(ask: () => Promise<void>): void {
    this.asks.push(ask);
    if (!this.asking) void this.next();
  }

  private async next(): Promise<void> {
    this.asking = true;
    while (this.asks.length > 0) await this.asks.shift()!();
    this.asking = false;
  }

  private async approve(e: ApprovalRequest): Promise<void> {
    if (!this.session.waiting.includes(e.requestId)) return;
    const body = await this.deps.approvalBody(e).catch(() => '');
    await new Promise<void>((resolve) => {
      this.deps.show(
        new ApprovalView(
          body,
          approvalQuestion(e, body),
          alwaysLabel(e),
          (answer, reason) => {
            if (answer === 'interrupt') {
              // Esc: the turn stops (the waiting call is cancelled with it, and the model is not called again).
              this.interrupt();
              this.session.approve(e.requestId, 'reject');
            } else this.session.approve(e.requestId, answer, reason);
            this.deps.restore();
            resolve();
          },
          () => this.deps.changed(),
        ),
      );
    });
  }

  private async answer(e: Question): Promise<void> {
    if (!this.session.waiting.includes(e.requestId)) return;
    const who = e.agent ? `(${e.agent.label}) ` : '';
    const question = `? ${who}${e.question}`;
    let answer: string | undefined;
    if (e.options && e.options.length > 0) {
      const items = [
        ...e.options.map((o) => ({ value: o, label: o })),
        { value: OWN_ANSWER, label: 'Something else…', description: 'type your own answer' },
      ];
      answer = await this.view<string>((done) => new PickView<string>(question, items, false, done));
      if (answer === OWN_ANSWER) answer = await this.view<string>((done) => new AskView(question, done));
    } else answer = await this.view<string>((done) => new AskView(question, done));
    this.transcript.print(`${question} → ${answer ?? '(no answer)'}`, 'dim');
    this.session.answer(e.requestId, answer ?? '');
  }

  private view<T>(make: (done: (v: T | undefined) => void) => Component): Promise<T | undefined> {
    return new Promise((resolve) => {
      this.deps.show(
        make((v) => {
          this.deps.restore();
          resolve(v);
        }),
      );
    });
  }
}

/**
 * Events that change the status line (cost, context use, running sub-agents). A
 * sub-agent's text deltas do not: the refresh reads the store, so it is not run per delta.
 */
function changesStatus(e: AgentEvent): boolean {
  if (e.type === 'usage' || e.type === 'compaction') return true;
  if (e.type !== 'subagent') return false;
  const inner = e.event.type;
  return inner === 'turn_start' || inner === 'usage' || inner === 'done';
}

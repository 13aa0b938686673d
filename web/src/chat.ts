/**
 * The transcript. Stored history (GET messages) and live events (SSE) go through
 * the same small set of methods, so a reloaded session looks exactly like the
 * live one did.
 */
import { clear, followEnd, h } from './dom.js';
import {
  failureLine,
  inputOf,
  journalNote,
  offerRetry,
  type RetryAction,
  type TurnInput,
  turnStatusLine,
} from './failure.js';
import { imageSrc, imageSrcs, thumbnail } from './images.js';
import { planBlock } from './plan.js';
import { Asks } from './prompts.js';
import { Segments } from './segments.js';
import { isDelegation, SubagentCards, type TranscriptView } from './subagents.js';
import { type CardState, isActive, ToolCard } from './tool-card.js';
import type { AgentEvent, ApprovalDecision, ImageInput, StoredMessage, StreamEvent } from './types.js';

export interface ChatActions {
  approve(requestId: string, decision: ApprovalDecision): Promise<boolean>;
  answer(requestId: string, text: string): Promise<boolean>;
  /** Sends a failed turn's input again. */
  retry: RetryAction;
}

export class ChatView implements TranscriptView {
  private turn: HTMLElement | null = null;
  private readonly segments = new Segments(
    () => this.turnNode(),
    () => this.scrollToEnd(false),
  );
  private readonly cards = new Map<string, ToolCard>();
  private readonly asks: Asks;
  /** Inputs already shown locally (with their images) before the server echoed them. */
  private readonly pendingInputs: TurnInput[] = [];
  /** The running turn's input (for Retry) and the error it showed, if any. */
  private turnInput: TurnInput | null = null;
  /** The input of a retry asked for (the server's turn_start names only its text). */
  private retrying: TurnInput | null = null;
  private failure: HTMLElement | null = null;
  /** The "got no answer" line of a stored message, until an answer to it arrives. */
  private noAnswer: HTMLElement | null = null;

  /** Sub-agents' cards under the calls that started them, each with a transcript of its own. */
  readonly subagents: SubagentCards;

  constructor(
    private readonly root: HTMLElement,
    private readonly actions: ChatActions,
  ) {
    this.subagents = new SubagentCards(this, (node) => new ChatView(node, actions));
    this.asks = new Asks(actions);
  }

  ownCard(callId: string): ToolCard | undefined {
    return this.cards.get(callId);
  }

  findCard(callId: string): ToolCard | undefined {
    return this.cards.get(callId) ?? this.subagents.findCard(callId);
  }

  reset(): void {
    clear(this.root);
    this.turn = null;
    this.segments.end();
    this.cards.clear();
    this.subagents.reset();
    this.asks.clear();
    this.pendingInputs.length = 0;
    this.turnInput = null;
    this.retrying = null;
    this.failure = null;
    this.noAnswer = null;
  }

  /** A retry of `input` was asked for (null: it was refused): its turn shows no new message. */
  expectRetry(input: TurnInput | null): void {
    this.retrying = input;
  }

  /**
   * Shows the user's message right away (the server's turn_start will not repeat
   * it). Returns an undo for when the server refuses the prompt.
   */
  addLocalUser(text: string, images: ImageInput[]): () => void {
    const input: TurnInput = { text, images };
    this.pendingInputs.push(input);
    const bubble = this.addUser(
      text,
      images.map((i) => `data:${i.mediaType};base64,${i.data}`),
    );
    return () => {
      bubble.remove();
      const index = this.pendingInputs.indexOf(input);
      if (index >= 0) this.pendingInputs.splice(index, 1);
    };
  }

  /** `awaitingClient`: the ids of client tool calls whose results the API client has not sent yet. */
  renderHistory(messages: StoredMessage[], busy: boolean, awaitingClient: readonly string[] = []): void {
    this.reset();
    for (const message of messages) this.renderStored(message);
    if (!busy) {
      // A call that never got a result was cut off (cancelled or the process died),
      // unless the turn stopped for the API client to run it.
      this.awaitClient(awaitingClient);
      for (const card of this.cards.values()) if (isActive(card.status)) card.setStatus('cancelled');
      const last = messages.at(-1);
      if (last?.role === 'user') this.unanswered(last);
    }
    this.segments.end();
    this.scrollToEnd(true);
  }

  handleEvent(event: StreamEvent): void {
    // A sub-agent's event goes to its card, never into this transcript.
    if (!this.subagents.take(event)) this.ownEvent(event);
    this.scrollToEnd(false);
  }

  private ownEvent(event: AgentEvent): void {
    // The message that got no answer has one now (a retry is answering it).
    if (event.type === 'text_delta' || event.type === 'thinking_delta' || event.type === 'tool_update')
      this.dropNoAnswer();
    switch (event.type) {
      case 'turn_start': {
        if (event.retry) {
          // The stored message runs again: it is on screen already.
          this.turnInput = this.retrying ?? { text: event.input, images: [] };
          this.retrying = null;
          this.failure = null;
          this.turn = null;
          break;
        }
        const local = this.pendingInputs.findIndex((p) => p.text === event.input);
        this.turnInput = this.pendingInputs[local] ?? { text: event.input, images: [] };
        this.failure = null;
        if (local >= 0) this.pendingInputs.splice(local, 1);
        else this.addUser(event.input, []);
        break;
      }
      case 'text_delta':
        this.segments.appendText(event.text);
        break;
      case 'thinking_delta':
        this.segments.appendThinking(event.text, true);
        break;
      case 'tool_update':
        this.startTool(event.record.callId, event.record.name, event.record.args, event.record.state).update(
          event.record,
        );
        if (isDelegation(event.record.name) && !isActive(event.record.state))
          this.subagents.settle(event.record);
        break;
      case 'approval_request':
        this.addApproval(event);
        break;
      case 'approval_result':
        this.asks.resolved(event.requestId, event.decision, event.message);
        break;
      case 'question':
        this.addQuestion(event);
        break;
      case 'plan':
        this.segments.end();
        this.turnNode().appendChild(planBlock(event));
        break;
      case 'notice':
        this.addLine('notice', `${event.title}: ${event.body}`);
        break;
      case 'retry':
        if (event.discard) this.segments.drop();
        this.addLine('retry', `Retrying (attempt ${event.attempt}): ${event.reason}`);
        break;
      case 'fallback':
        this.segments.drop();
        this.addLine('fallback', `Switched model ${event.from} → ${event.to}: ${event.reason}`);
        break;
      case 'compaction':
        this.addLine('compaction', `Context trimmed: ${event.tokensBefore} → ${event.tokensAfter} tokens`);
        break;
      case 'error':
        this.addFailure(event.message);
        break;
      case 'done':
        if (event.reason === 'client_tools') this.awaitClient((event.clientCalls ?? []).map((c) => c.id));
        this.endTurn(event.reason, event.message);
        break;
      default:
        break;
    }
  }

  private renderStored(message: StoredMessage): void {
    if (message.role === 'user') {
      // What undo/redo told the model (stored as a user message for it): a line, not a bubble.
      const note = journalNote(message);
      if (note !== null) this.addLine('journal', note);
      else this.addUser(inputOf(message).text, imageSrcs(message.parts));
      return;
    }
    for (const part of message.parts) {
      if (part.type === 'text') this.segments.appendText(part.text);
      else if (part.type === 'thinking') this.segments.appendThinking(part.text, false);
      else if (part.type === 'tool-call') this.startTool(part.id, part.name, part.args, part.state);
      else if (part.type === 'tool-result') {
        const status = part.status ?? (part.isError ? 'error' : 'completed');
        this.startTool(part.callId, part.name, {}).finish(status, part.output, part.durationMs);
      } else if (part.type === 'image') {
        const src = imageSrc(part);
        if (src) this.turnNode().appendChild(thumbnail(src));
      }
      if (part.type !== 'text' && part.type !== 'thinking') this.segments.end();
    }
  }

  private addUser(text: string, images: string[]): HTMLElement {
    this.segments.end();
    this.turn = null;
    const bubble = h('div', { class: 'msg msg-user', 'data-testid': 'user-message' });
    if (images.length > 0) bubble.appendChild(h('div', { class: 'thumbs' }, ...images.map(thumbnail)));
    if (text) bubble.appendChild(h('div', { class: 'msg-text' }, text));
    this.root.appendChild(bubble);
    return bubble;
  }

  private turnNode(): HTMLElement {
    if (!this.turn) {
      this.turn = h('div', { class: 'msg msg-assistant', 'data-testid': 'assistant-message' });
      this.root.appendChild(this.turn);
    }
    return this.turn;
  }

  /** The call's card, added (in `state`) when it is new. */
  private startTool(
    callId: string,
    name: string,
    args: Record<string, unknown>,
    state?: CardState,
  ): ToolCard {
    this.segments.end();
    const known = this.cards.get(callId);
    if (known) return known;
    const card = new ToolCard(callId, name, args, state);
    this.cards.set(callId, card);
    this.turnNode().appendChild(card.root);
    return card;
  }

  private addApproval(event: Extract<AgentEvent, { type: 'approval_request' }>): void {
    // A reconnect may repeat a request still waiting: it is shown once.
    const prompt = this.asks.approval(event);
    if (!prompt) return;
    this.segments.end();
    this.cards.get(event.callId)?.setStatus('awaiting_approval');
    this.turnNode().appendChild(prompt.root);
    // The turn waits for the user: show the question, even to someone reading further up.
    prompt.root.scrollIntoView({ block: 'nearest' });
  }

  private addQuestion(event: Extract<AgentEvent, { type: 'question' }>): void {
    const prompt = this.asks.question(event);
    if (!prompt) return;
    this.segments.end();
    this.turnNode().appendChild(prompt.root);
    prompt.root.querySelector('textarea')?.focus();
  }

  private addLine(kind: string, text: string): void {
    this.segments.end();
    this.turnNode().appendChild(
      h('div', { class: `system-line line-${kind}`, 'data-testid': `line-${kind}` }, text),
    );
  }

  /** The error of a failed turn, once (the `done` that follows repeats its message). */
  private addFailure(message: string): HTMLElement {
    this.segments.end();
    if (this.failure?.dataset.message === message) return this.failure;
    this.failure = failureLine(message);
    this.turnNode().appendChild(this.failure);
    return this.failure;
  }

  /** A stored session ends with the user's message: its turn failed or was stopped before any answer. */
  private unanswered(message: StoredMessage): void {
    const line = this.addFailure('This message got no answer (its turn failed or was stopped).');
    offerRetry(line, inputOf(message), this.actions.retry);
    this.noAnswer = line;
    this.failure = null;
    this.turn = null;
  }

  private dropNoAnswer(): void {
    const block = this.noAnswer?.parentElement;
    this.noAnswer?.remove();
    this.noAnswer = null;
    if (block && block.childElementCount === 0) block.remove();
  }

  /** Marks the calls whose results the API client is to send (a client tool's). */
  private awaitClient(callIds: readonly string[]): void {
    for (const id of callIds) this.cards.get(id)?.setStatus('awaiting_client');
  }

  private endTurn(reason: string, message?: string): void {
    this.segments.end();
    this.asks.expire();
    for (const card of this.cards.values()) if (isActive(card.status)) card.setStatus('cancelled');
    this.subagents.endAll();
    if (reason === 'error') {
      const line = this.failure ?? this.addFailure(message ?? 'The turn failed.');
      if (this.turnInput) offerRetry(line, this.turnInput, this.actions.retry);
    } else if (reason !== 'completed') this.turnNode().appendChild(turnStatusLine(reason, message));
    this.turn = null;
    this.turnInput = null;
    this.failure = null;
  }

  /** Follows the stream unless the user has scrolled up to read. */
  private scrollToEnd(force: boolean): void {
    followEnd(this.root.parentElement ?? this.root, force);
  }
}

/**
 * Sub-agents in the transcript: a card per child under the tool card of the call that
 * started it (`task`, `delegate_tasks`, `agent_<role>`), with its label, role, status,
 * tokens and the tool it runs; it expands to the child's own transcript. A live child's
 * transcript is built from its events on the parent's stream (they carry `parent`);
 * a stored one is loaded from the API when first opened.
 */
import { h } from './dom.js';
import { compactNumber } from './text.js';
import type { ToolCard } from './tool-card.js';
import type {
  AgentEvent,
  ListOf,
  ParentField,
  StoredMessage,
  StreamEvent,
  SubagentStatus,
  SubagentSummary,
  ToolCallRecord,
} from './types.js';

/** What a card needs of the transcript view it holds (a ChatView). */
export interface TranscriptView {
  handleEvent(event: StreamEvent): void;
  renderHistory(messages: StoredMessage[], busy: boolean): void;
  /** The card of one of its own calls. */
  ownCard(callId: string): ToolCard | undefined;
  /** The card of a call here or in a sub-agent's transcript. */
  findCard(callId: string): ToolCard | undefined;
  readonly subagents: SubagentCards;
}

/** What loading a stored child needs of the API. */
export interface ChildrenApi {
  messages(id: string): Promise<ListOf<StoredMessage>>;
  children(id: string): Promise<ListOf<SubagentSummary>>;
}

const ENDED = new Set<SubagentStatus>(['done', 'budget', 'timeout', 'max turns', 'failed', 'cancelled']);

const HEAD_STATUS: Array<[RegExp, SubagentStatus]> = [
  [/^completed$/, 'done'],
  [/^stopped by its budget/, 'budget'],
  [/^stopped by its time limit/, 'timeout'],
  [/^stopped at its turn limit/, 'max turns'],
  [/^failed$/, 'failed'],
  [/^cancelled$/, 'cancelled'],
];

/** Whether a tool starts sub-agents. */
export function isDelegation(name: string): boolean {
  return name === 'task' || name === 'delegate_tasks' || name.startsWith('agent_');
}

/** How each child of a finished delegation call ended: `[sub-agent <label> · <status> · N tokens · session <id8>]`. */
function heads(output: string): Array<{ status: SubagentStatus; session: string }> {
  const out: Array<{ status: SubagentStatus; session: string }> = [];
  for (const m of output.matchAll(/^\[sub-agent .+? · (.+?) · \d+ tokens · session ([0-9a-f-]+)\]$/gm)) {
    const status = HEAD_STATUS.find(([re]) => re.test(m[1] ?? ''))?.[1];
    if (status && m[2]) out.push({ status, session: m[2] });
  }
  return out;
}

export class SubagentCard {
  readonly root: HTMLDetailsElement;
  readonly view: TranscriptView;
  private readonly statusNode = h('span', { class: 'subagent-status', 'data-testid': 'subagent-status' });
  private readonly tokensNode = h('span', { class: 'subagent-tokens', 'data-testid': 'subagent-tokens' });
  private readonly toolNode = h('span', { class: 'subagent-tool', 'data-testid': 'subagent-tool' });
  private tokens = 0;
  /** A stored child's transcript is loaded on first opening; a live one is built from events. */
  private load: (() => Promise<void>) | null = null;

  constructor(
    readonly sessionId: string,
    readonly callId: string,
    label: string,
    role: string,
    makeView: (root: HTMLElement) => TranscriptView,
  ) {
    const transcript = h('div', { class: 'subagent-transcript', 'data-testid': 'subagent-transcript' });
    this.view = makeView(transcript);
    this.root = h(
      'details',
      { class: 'subagent-card', 'data-testid': 'subagent-card', 'data-session-id': sessionId },
      h(
        'summary',
        {},
        h('span', { class: 'subagent-label', 'data-testid': 'subagent-label' }, label),
        h('span', { class: 'subagent-role', 'data-testid': 'subagent-role' }, role),
        this.toolNode,
        h('span', { class: 'tool-spacer' }),
        this.tokensNode,
        this.statusNode,
      ),
      transcript,
    );
    this.root.addEventListener('toggle', () => {
      const load = this.load;
      this.load = null;
      if (this.root.open && load) void load();
    });
    this.setStatus('running');
    this.setTokens(0);
  }

  get status(): SubagentStatus {
    return this.root.dataset.status as SubagentStatus;
  }

  setStatus(status: SubagentStatus): void {
    this.root.dataset.status = status;
    this.statusNode.textContent = status;
    if (ENDED.has(status)) this.toolNode.textContent = '';
  }

  private setTokens(n: number): void {
    this.tokens = n;
    this.tokensNode.textContent = `${compactNumber(n)} tokens`;
    this.root.dataset.tokens = String(n);
  }

  /** One of the child's own events: its line, then its transcript. */
  handle(event: AgentEvent): void {
    switch (event.type) {
      case 'turn_start':
        this.setStatus('running');
        break;
      case 'usage':
        this.setTokens(this.tokens + event.usage.inputTokens + event.usage.outputTokens);
        break;
      case 'tool_update':
        this.toolUpdate(event.record);
        break;
      case 'done':
        this.setStatus(
          event.reason === 'completed'
            ? 'done'
            : event.reason === 'budget'
              ? 'budget'
              : event.reason === 'max_iterations'
                ? 'max turns'
                : event.reason === 'cancelled'
                  ? 'stopped'
                  : 'failed',
        );
        break;
      default:
        break;
    }
    this.view.handleEvent(event);
  }

  private toolUpdate(r: ToolCallRecord): void {
    if (r.state === 'awaiting_approval') this.setStatus('waiting for approval');
    else if (r.state === 'running') {
      this.setStatus('running');
      this.toolNode.textContent = r.name;
    } else if (r.state !== 'pending') {
      if (this.status === 'waiting for approval') this.setStatus('running');
      if (this.toolNode.textContent === r.name) this.toolNode.textContent = '';
    }
  }

  /** A stored child: its status and usage from the API, its transcript when first opened. */
  stored(summary: SubagentSummary, api: ChildrenApi): void {
    this.setStatus(summary.status === 'running' ? 'running' : summary.status);
    this.setTokens(summary.usage.input_tokens + summary.usage.output_tokens);
    this.load = async () => {
      const history = await api.messages(summary.id);
      this.view.renderHistory(history.data, summary.status === 'running');
      if (summary.children > 0) await this.view.subagents.loadStored(summary.id, api);
    };
  }
}

/** The sub-agent cards of one transcript view. */
export class SubagentCards {
  private readonly cards = new Map<string, SubagentCard>();
  /** The box under each tool card that holds its children's cards. */
  private readonly boxes = new Map<string, HTMLElement>();

  constructor(
    private readonly owner: Pick<TranscriptView, 'ownCard'>,
    private readonly makeView: (root: HTMLElement) => TranscriptView,
  ) {}

  reset(): void {
    this.cards.clear();
    this.boxes.clear();
  }

  /** The card of a child, here or in a child's transcript. */
  find(sessionId: string): SubagentCard | undefined {
    const here = this.cards.get(sessionId);
    if (here) return here;
    for (const c of this.cards.values()) {
      const deeper = c.view.subagents.find(sessionId);
      if (deeper) return deeper;
    }
    return undefined;
  }

  /** A tool card in a child's transcript. */
  findCard(callId: string): ToolCard | undefined {
    for (const c of this.cards.values()) {
      const card = c.view.findCard(callId);
      if (card) return card;
    }
    return undefined;
  }

  /** A child's event (it has `parent`) goes to its card, made under its call's card when new: true. */
  take(event: StreamEvent): boolean {
    if (!event.parent) return false;
    this.handle(event as StreamEvent & { parent: ParentField });
    return true;
  }

  private handle(event: StreamEvent & { parent: ParentField }): void {
    const { parent, ...inner } = event;
    const here =
      this.cards.get(parent.sessionId) ??
      (this.owner.ownCard(parent.callId)
        ? this.add(parent.sessionId, parent.callId, parent.label, parent.role)
        : undefined);
    if (here) {
      here.handle(inner as AgentEvent);
      return;
    }
    // A grandchild: to the child whose transcript holds the call that started it.
    for (const c of this.cards.values()) {
      if (c.view.subagents.find(parent.sessionId) || c.view.findCard(parent.callId)) {
        c.view.subagents.handle(event);
        return;
      }
    }
  }

  /** A delegation call ended: its result says how each of its children ended. */
  settle(r: ToolCallRecord): void {
    let output = '';
    for (const p of r.content) if (p.type === 'text') output += p.text;
    for (const head of heads(output)) {
      for (const c of this.cards.values())
        if (c.callId === r.callId && c.sessionId.startsWith(head.session)) c.setStatus(head.status);
    }
  }

  /** The session's turn ended: a child still shown as running was stopped with it. */
  endAll(): void {
    for (const c of this.cards.values()) if (!ENDED.has(c.status)) c.setStatus('cancelled');
  }

  /** A stored session's children, each under its call's card (collapsed, loaded when opened). */
  async loadStored(sessionId: string, api: ChildrenApi): Promise<void> {
    const list = await api.children(sessionId);
    for (const s of list.data) {
      if (this.cards.has(s.id) || !s.parent_call_id) continue;
      this.add(s.id, s.parent_call_id, s.label, s.role)?.stored(s, api);
    }
  }

  private add(sessionId: string, callId: string, label: string, role: string): SubagentCard | undefined {
    const owner = this.owner.ownCard(callId);
    if (!owner) return undefined;
    const card = new SubagentCard(sessionId, callId, label, role, this.makeView);
    let box = this.boxes.get(callId);
    if (!box) {
      box = h('div', { class: 'subagent-cards', 'data-testid': 'subagent-cards', 'data-call-id': callId });
      owner.root.after(box);
      this.boxes.set(callId, box);
    }
    box.appendChild(card.root);
    this.cards.set(sessionId, card);
    return card;
  }
}

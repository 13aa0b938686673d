/**
 * One workflow run in the Workflows panel: its status, the approvals it waits for
 * (approve or reject), cancel, resume and fork, and its nodes with their statuses,
 * live from the run's event stream while it runs (each agent node links to its
 * session). The Mermaid graph is shown as text, to copy into any Mermaid viewer.
 */
import { type Api, ApiError } from './api.js';
import { attempt, clear, h, toast } from './dom.js';
import { EventStream } from './sse.js';
import { formatDuration, oneLine, relativeTime, truncate } from './text.js';
import {
  type Checkpoint,
  cancellable,
  type NodeRun,
  type RunDetails,
  type RunEvent,
  resumable,
} from './workflow-types.js';

export interface RunViewHandlers {
  /** Back to the lists. */
  back(): void;
  /** Show another run (a fork). */
  show(id: string): void;
  /** Open an agent node's session in the chat. */
  openSession(id: string): void;
  /** The run changed status (the runs list is refreshed). */
  changed(): void;
}

/** Marks with glyphs every font has (no emoji: minimal browsers lack an emoji font). */
const MARK: Record<string, string> = {
  completed: '✓',
  failed: '✗',
  running: '●',
  waiting: '‖',
  interrupted: '!',
  cancelled: '■',
  pending: '·',
};

/** A short text of a node's value. */
function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return truncate(oneLine(text), 140);
}

export class RunView {
  private run: RunDetails | null = null;
  private history: Checkpoint[] = [];
  private stream: EventStream<RunEvent> | null = null;
  private loading = false;
  private again = false;
  /** Live sessions of agent nodes (from their first event), before the run records them. */
  private readonly sessions = new Map<string, string>();
  private closed = false;
  /** While the run runs: its duration, counted on. */
  private ticker = 0;

  constructor(
    private readonly api: Api,
    private readonly box: HTMLElement,
    readonly runId: string,
    private readonly handlers: RunViewHandlers,
  ) {}

  /** Shows `initial` (when the caller has it) or loads the run, then follows it while it runs. */
  async open(initial?: RunDetails): Promise<void> {
    if (initial) {
      this.run = initial;
      this.render();
      this.follow();
    }
    await this.reload();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.ticker);
    this.stream?.close();
    this.stream = null;
  }

  /** Loads the run (and its checkpoints) again; calls that come while one runs are folded into one more. */
  private async reload(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = true;
    try {
      do {
        this.again = false;
        const [run, history] = await Promise.all([
          attempt(() => this.api.getRun(this.runId)),
          attempt(() => this.api.runHistory(this.runId)),
        ]);
        if (this.closed) return;
        if (run) {
          const was = this.run?.status;
          this.run = run;
          this.history = history?.data ?? this.history;
          this.render();
          this.follow();
          if (was !== undefined && was !== run.status) this.handlers.changed();
        }
      } while (this.again && !this.closed);
    } finally {
      this.loading = false;
    }
  }

  /** Opens the event stream while the run runs; closes it when it stops. */
  private follow(): void {
    const running = this.run?.status === 'running';
    if (!running || this.closed) {
      this.stream?.close();
      this.stream = null;
      return;
    }
    if (this.stream) return;
    this.stream = new EventStream<RunEvent>({
      url: this.api.url(`/v1/workflow-runs/${encodeURIComponent(this.runId)}/events`),
      headers: () => this.api.headers(),
      reauthorize: () => this.api.reauthorize(this.api.token ? 'invalid' : 'missing'),
      onEvent: (e) => this.onEvent(e),
    });
  }

  private onEvent(e: RunEvent): void {
    if (this.closed || !this.run) return;
    const own = e.runId === this.runId;
    switch (e.type) {
      case 'status':
        // What the stream saw on connecting (after the last load): load again.
        if (e.status !== 'running') this.stopStream();
        void this.reload();
        return;
      case 'node_start':
        if (own) this.upsertNode({ key: e.nodeKey, node_id: e.nodeId, kind: e.kind, status: 'running' });
        return;
      case 'node_end':
        if (own) this.upsertNode({ key: e.nodeKey, node_id: e.nodeId, kind: e.kind, status: e.status });
        void this.reload();
        return;
      case 'agent':
        // The node's own session (not a sub-agent's) announces itself as its turn starts.
        if (own && e.event.type === 'turn_start' && !e.event.parent && !this.sessions.has(e.nodeKey)) {
          this.sessions.set(e.nodeKey, e.event.sessionId);
          this.render();
        }
        return;
      case 'approval_request':
        void this.reload();
        return;
      case 'run_end':
        if (own) this.stopStream();
        void this.reload();
        return;
      default:
        return;
    }
  }

  private stopStream(): void {
    this.stream?.close();
    this.stream = null;
  }

  /** A node's status from the stream, before the next load brings the rest. */
  private upsertNode(n: Pick<NodeRun, 'key' | 'node_id' | 'kind' | 'status'>): void {
    if (!this.run) return;
    const nodes = this.run.nodes;
    const at = nodes.findIndex((x) => x.key === n.key);
    if (at >= 0) nodes[at] = { ...nodes[at]!, status: n.status };
    else nodes.push({ ...n, attempts: 1, started_at: Date.now(), finished_at: null, error: null });
    this.render();
  }

  private render(): void {
    const run = this.run;
    if (!run) return;
    clear(this.box);
    this.box.dataset.status = run.status;
    const back = h('button', { class: 'small', 'data-testid': 'run-back' }, '← Runs');
    back.addEventListener('click', () => this.handlers.back());
    const duration = h('span', { class: 'run-duration' }, formatDuration(run.duration_ms));
    clearInterval(this.ticker);
    if (run.status === 'running') {
      const shown = Date.now();
      this.ticker = window.setInterval(() => {
        duration.textContent = formatDuration(run.duration_ms + Date.now() - shown);
      }, 1000);
    }
    const forked = run.forked_from
      ? ` · forked from ${run.forked_from.slice(0, 8)} at ${run.forked_seq}`
      : '';
    this.box.append(
      h('div', { class: 'row' }, back),
      h(
        'h3',
        { class: 'run-title' },
        run.workflow,
        ' ',
        h('span', { class: 'run-id', title: run.id }, run.id.slice(0, 8)),
      ),
      h(
        'p',
        { class: 'run-meta' },
        h(
          'span',
          { class: `badge run-status status-${run.status}`, 'data-testid': 'run-status' },
          run.status,
        ),
        ` started ${relativeTime(run.created_at)} · `,
        duration,
        forked,
      ),
    );
    if (run.error && run.status !== 'cancelled')
      this.box.appendChild(h('p', { class: 'run-error', 'data-testid': 'run-error' }, run.error));
    for (const w of run.waiting) this.box.appendChild(this.approval(w.node_key, w.question));
    this.box.appendChild(this.actions(run));
    const list = h('ol', { class: 'run-nodes', 'data-testid': 'run-nodes' });
    for (const n of run.nodes) list.appendChild(this.node(n));
    if (run.nodes.length === 0) list.appendChild(h('li', { class: 'empty' }, 'No node has run yet'));
    this.box.appendChild(list);
    if (run.status === 'completed' && run.output !== undefined && run.output !== null) {
      const text = typeof run.output === 'string' ? run.output : JSON.stringify(run.output, null, 2);
      this.box.appendChild(
        h(
          'details',
          { class: 'run-output', open: true },
          h('summary', {}, 'Output'),
          h('pre', { 'data-testid': 'run-output' }, text),
        ),
      );
    }
    this.box.appendChild(
      h(
        'details',
        { class: 'run-graph' },
        h('summary', {}, 'Graph (Mermaid)'),
        h('pre', { 'data-testid': 'run-graph' }, run.graph),
      ),
    );
  }

  private node(n: NodeRun): HTMLElement {
    const what = n.role ? `${n.kind} · ${n.role}` : n.tool ? `${n.kind} · ${n.tool}` : n.kind;
    const took = n.started_at && n.finished_at ? ` · ${formatDuration(n.finished_at - n.started_at)}` : '';
    const row = h(
      'li',
      { class: 'run-node', 'data-testid': 'run-node', 'data-key': n.key, 'data-status': n.status },
      h('span', { class: 'run-node-mark', 'aria-hidden': 'true' }, MARK[n.status] ?? '·'),
      h('span', { class: 'run-node-key' }, n.key),
      h(
        'span',
        { class: 'run-node-kind' },
        `${what}${n.attempts > 1 ? ` · ${n.attempts} tries` : ''}${took}`,
      ),
      h('span', { class: 'sr-only' }, ` ${n.status}`),
    );
    const session = n.session_id ?? this.sessions.get(n.key);
    if (n.kind === 'agent' && session) {
      const open = h(
        'button',
        { class: 'link', 'data-testid': 'run-node-session', title: `Open the session of ${n.key}` },
        'Session',
      );
      open.addEventListener('click', () => this.handlers.openSession(session));
      row.appendChild(open);
    }
    if (n.error) row.appendChild(h('p', { class: 'run-node-error' }, n.error));
    else if (
      n.status === 'completed' &&
      n.value !== undefined &&
      ['agent', 'tool', 'workflow'].includes(n.kind)
    )
      row.appendChild(h('p', { class: 'run-node-value' }, preview(n.value)));
    return row;
  }

  private approval(nodeKey: string, question: string): HTMLElement {
    const approve = h('button', { class: 'primary small', 'data-testid': 'run-approve' }, 'Approve');
    const reject = h('button', { class: 'small danger', 'data-testid': 'run-reject' }, 'Reject');
    const decide = async (decision: 'approve' | 'reject'): Promise<void> => {
      approve.disabled = reject.disabled = true;
      const run = await attempt(() => this.api.resumeRun(this.runId, decision, nodeKey));
      approve.disabled = reject.disabled = false;
      if (run) this.started(run);
    };
    approve.addEventListener('click', () => void decide('approve'));
    reject.addEventListener('click', () => void decide('reject'));
    return h(
      'div',
      { class: 'run-approval', 'data-testid': 'run-approval', role: 'group', 'aria-label': 'Approval' },
      h('p', { class: 'run-question' }, question),
      h('div', { class: 'row' }, approve, reject),
    );
  }

  private actions(run: RunDetails): HTMLElement {
    const row = h('div', { class: 'row run-actions' });
    if (cancellable(run.status)) {
      const cancel = h('button', { class: 'small danger', 'data-testid': 'run-cancel' }, 'Cancel');
      cancel.addEventListener('click', async () => {
        cancel.disabled = true;
        const r = await attempt(() => this.api.cancelRun(this.runId));
        if (r?.result === 'requested') toast('Another process runs it: it stops at its next heartbeat');
        void this.reload();
      });
      row.appendChild(cancel);
    }
    // A waiting run goes on through its approval's buttons.
    if (resumable(run.status) && run.waiting.length === 0) {
      const resume = h('button', { class: 'small', 'data-testid': 'run-resume' }, 'Resume');
      resume.addEventListener('click', async () => {
        resume.disabled = true;
        const next = await attempt(() => this.api.resumeRun(this.runId));
        if (next) this.started(next);
        else resume.disabled = false;
      });
      row.appendChild(resume);
    }
    if (this.history.length > 0) row.appendChild(this.forkControl());
    return row;
  }

  /** Fork: a checkpoint to start from (a node's result), and the button. */
  private forkControl(): HTMLElement {
    const select = h('select', { 'aria-label': 'Fork from checkpoint', 'data-testid': 'run-fork-select' });
    for (const cp of this.history) {
      if (cp.event !== 'result') continue;
      select.appendChild(h('option', { value: String(cp.seq) }, `${cp.seq} · after ${cp.node_key}`));
    }
    const fork = h('button', { class: 'small', 'data-testid': 'run-fork' }, 'Fork');
    fork.addEventListener('click', async () => {
      const seq = Number(select.value);
      if (!Number.isInteger(seq) || seq < 1) return;
      fork.disabled = true;
      try {
        const run = await this.api.forkRun(this.runId, seq);
        toast(`Forked run ${run.id.slice(0, 8)} from checkpoint ${seq}`);
        this.handlers.show(run.id);
      } catch (err) {
        toast(err instanceof ApiError ? err.message : String(err), 'error');
        fork.disabled = false;
      }
    });
    if (select.options.length === 0) return h('span');
    return h('span', { class: 'run-fork' }, select, fork);
  }

  /** After a resume or decision: the run goes on (its stream follows it). */
  private started(run: RunDetails): void {
    this.run = run;
    this.render();
    this.follow();
    this.handlers.changed();
  }
}

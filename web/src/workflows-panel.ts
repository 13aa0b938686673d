/**
 * The Workflows panel: the workflows there are (each opens a small form to start
 * it) and the recent runs (status, started, duration); a run opens in the same
 * panel (workflow-run.ts), live while it runs.
 */
import type { Api } from './api.js';
import { attempt, byId, clear, h, toast } from './dom.js';
import { formatDuration, relativeTime } from './text.js';
import { workflowForm } from './workflow-form.js';
import { RunView } from './workflow-run.js';
import type { RunSummary, WorkflowDef } from './workflow-types.js';

export interface WorkflowsPanelHandlers {
  /** Open an agent node's session in the chat. */
  openSession(id: string): void;
}

const WHERE: Record<WorkflowDef['source'], string> = {
  project: 'project',
  user: 'yours',
  builtin: 'built-in',
};

export class WorkflowsPanel {
  private readonly home = byId('workflows-home');
  private readonly defs = byId('workflow-list');
  private readonly runs = byId('run-list');
  private readonly runBox = byId('workflow-run');
  private view: RunView | null = null;
  /** Bumped per refresh, so a slow answer never overwrites a newer one. */
  private generation = 0;

  constructor(
    private readonly api: Api,
    private readonly handlers: WorkflowsPanelHandlers,
  ) {
    byId('runs-refresh').addEventListener('click', () => void this.refreshRuns());
  }

  /** The panel is shown: the lists (or the open run) are loaded afresh. */
  async refresh(): Promise<void> {
    if (this.view) {
      const id = this.view.runId;
      this.closeRun();
      await this.showRun(id);
      return;
    }
    await Promise.all([this.refreshDefs(), this.refreshRuns()]);
  }

  /** The panel is hidden: stop following the open run. */
  hidden(): void {
    this.view?.close();
  }

  private async refreshDefs(): Promise<void> {
    const result = await attempt(() => this.api.listWorkflows());
    if (!result) return;
    clear(this.defs);
    const shown = result.data.filter((d) => !d.shadowed);
    if (shown.length === 0) this.defs.appendChild(h('li', { class: 'empty' }, 'No workflows'));
    for (const def of shown) this.defs.appendChild(this.defItem(def));
  }

  private async refreshRuns(): Promise<void> {
    const generation = ++this.generation;
    const result = await attempt(() => this.api.listRuns());
    if (!result || generation !== this.generation) return;
    clear(this.runs);
    if (result.data.length === 0) this.runs.appendChild(h('li', { class: 'empty' }, 'No runs yet'));
    for (const run of result.data) this.runs.appendChild(this.runItem(run));
  }

  private defItem(def: WorkflowDef): HTMLElement {
    const summary = h(
      'summary',
      {},
      h('span', { class: 'workflow-name' }, def.name),
      h('span', { class: 'badge' }, WHERE[def.source]),
      def.description ? h('span', { class: 'workflow-desc' }, def.description) : null,
    );
    const body = def.error
      ? h('p', { class: 'run-error', 'data-testid': 'workflow-error' }, def.error)
      : workflowForm(def, (input) => this.start(def.name, input));
    return h(
      'li',
      { class: 'workflow', 'data-testid': 'workflow-item', 'data-name': def.name },
      h('details', {}, summary, body),
    );
  }

  private runItem(run: RunSummary): HTMLElement {
    const open = h(
      'button',
      { class: 'run-open', 'data-testid': 'run-item', 'data-run-id': run.id, 'data-status': run.status },
      h('span', { class: 'run-name' }, run.workflow),
      h('span', { class: `badge run-status status-${run.status}` }, run.status),
      h(
        'span',
        { class: 'run-when' },
        `${relativeTime(run.created_at)} · ${formatDuration(run.duration_ms)}`,
      ),
    );
    open.addEventListener('click', () => void this.showRun(run.id));
    return h('li', { class: 'run' }, open);
  }

  private async start(name: string, input: Record<string, unknown>): Promise<void> {
    const run = await attempt(() => this.api.startWorkflow(name, input));
    if (!run) return;
    toast(`Started ${name}`);
    this.closeRun();
    this.home.hidden = true;
    this.runBox.hidden = false;
    this.view = this.makeView(run.id);
    await this.view.open(run);
  }

  private async showRun(id: string): Promise<void> {
    this.closeRun();
    this.home.hidden = true;
    this.runBox.hidden = false;
    this.view = this.makeView(id);
    await this.view.open();
  }

  private makeView(id: string): RunView {
    return new RunView(this.api, this.runBox, id, {
      back: () => this.back(),
      show: (other) => void this.showRun(other),
      openSession: (session) => this.handlers.openSession(session),
      changed: () => void this.refreshRuns(),
    });
  }

  private closeRun(): void {
    this.view?.close();
    this.view = null;
    clear(this.runBox);
  }

  private back(): void {
    this.closeRun();
    this.runBox.hidden = true;
    this.home.hidden = false;
    void this.refresh();
  }
}

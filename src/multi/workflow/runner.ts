/**
 * The workflow runner: `start`, `resume`, `cancel`, `status` and events, over runs
 * and checkpoints in SQLite, executed in this process (`SqliteWorkflowRunner`).
 *
 * A run is held by one process at a time (its row names the process, renewed by a
 * heartbeat); a run whose process died is taken over by `resume`, which replays the
 * journal (engine.ts): completed nodes are not run again. A cancel from another
 * process sets a flag the holder reads at its next heartbeat.
 *
 * A PostgreSQL runner on several `tea worker` processes is an adapter of this
 * interface, not a rewrite: its `start` enqueues the run as a DBOS workflow whose
 * function builds the same Engine with a journal whose `start`/`finish` are DBOS
 * steps (checkpointed in PostgreSQL and returned on recovery); DBOS recovers a dead
 * worker's runs on another (that replaces the heartbeat and `resume` after a crash);
 * `cancel` is DBOS.cancelWorkflow, `status` reads its workflow status, and events go
 * through DBOS.setEvent / a LISTEN channel instead of the in-process listeners.
 */
import { type TraceParent, type Tracer, traceWorkflow } from '../../agent/trace.js';
import type { CheckpointRow, LeaseOwner, RunRow, Store } from '../../store/index.js';
import { thisProcess } from '../../store/index.js';
import { randomUUID } from '../../util/random-id.js';
import { Engine, type Outcome } from './engine.js';
import { WorkflowRunError } from './errors.js';
import { type NodeView, nodeViews, type RunView, runView } from './history.js';
import { SqliteJournal } from './journal.js';
import { abortableSleep, checkInput } from './run-input.js';
import type { EngineDeps, SubWorkflowPort } from './steps.js';

export { abortableSleep, checkInput } from './run-input.js';

import type {
  AgentNodeRunner,
  ApprovalPort,
  ToolNodeRunner,
  WorkflowDefinition,
  WorkflowEvent,
} from './types.js';

export interface RunOutcome {
  runId: string;
  status: 'completed' | 'failed' | 'cancelled' | 'waiting';
  output?: unknown;
  error?: string;
  state: Record<string, unknown>;
  /** For `waiting`: the approval it waits for. */
  waitingFor?: { nodeKey: string; question: string };
}

export interface RunHandle {
  runId: string;
  /** Settles when the run completes, fails, is cancelled or waits for an approval. */
  done: Promise<RunOutcome>;
}

export interface RunOptions {
  /** Decisions on approvals by node key or id (`resume --approve`). */
  decisions?: Record<string, boolean>;
}

export interface RunStatusView {
  run: RunRow;
  status: RunView;
  nodes: NodeView[];
  children: RunRow[];
}

/** Loads definitions: by name or path (sub-workflows), and the one a stored run was started from. */
export interface DefinitionLoader {
  resolve(nameOrPath: string, from?: string): Promise<WorkflowDefinition>;
  forRun(run: RunRow): Promise<WorkflowDefinition>;
}

/** The one runner interface (see the file's comment for the PostgreSQL/DBOS adapter). */
export interface WorkflowRunner {
  start(def: WorkflowDefinition, input: Record<string, unknown>, opts?: RunOptions): Promise<RunHandle>;
  resume(runId: string, opts?: RunOptions): Promise<RunHandle>;
  /** `cancelled`: done; `requested`: another process runs it and stops at its next heartbeat. */
  cancel(runId: string): Promise<{ runId: string; result: 'cancelled' | 'requested' | 'finished' }>;
  status(runId: string): RunStatusView;
  history(runId: string): CheckpointRow[];
  /** A new run from `runId`'s checkpoints 1…`seq` (pending: `resume` runs it). */
  fork(runId: string, seq: number): RunRow;
  list(limit?: number): Array<RunRow & { view: RunView }>;
  /** Every event of every run this runner executes; returns the unsubscribe. */
  subscribe(listener: (event: WorkflowEvent) => void): () => void;
}

export interface SqliteRunnerOptions {
  store: () => Store;
  cwd: string;
  agents: AgentNodeRunner;
  tools: ToolNodeRunner;
  definitions: DefinitionLoader;
  approvals?: ApprovalPort;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** How often a running run is renewed and checked for a cancel from elsewhere (default 1 s). */
  heartbeatMs?: number;
  /** Where `invoke_workflow` spans go (its agent nodes' spans nest under them). */
  tracer?: Tracer;
}

/** How long another host trusts a run's holder without a heartbeat. */
const HOLD_TTL_MS = 30_000;
const MAX_DEPTH = 5;

export class SqliteWorkflowRunner implements WorkflowRunner {
  private readonly listeners = new Set<(event: WorkflowEvent) => void>();
  private readonly active = new Map<string, { controller: AbortController; done: Promise<RunOutcome> }>();

  constructor(private readonly opts: SqliteRunnerOptions) {}

  private get repo() {
    return this.opts.store().workflows;
  }

  subscribe(listener: (event: WorkflowEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: WorkflowEvent): void {
    for (const l of [...this.listeners]) l(event);
  }

  async start(
    def: WorkflowDefinition,
    input: Record<string, unknown>,
    opts: RunOptions = {},
  ): Promise<RunHandle> {
    const checked = checkInput(def, input);
    const row = this.repo.create({
      workflow: def.name,
      source: def.source.file,
      definition: def.source.kind === 'module' ? null : (def.source.text ?? null),
      defHash: def.source.hash,
      cwd: this.opts.cwd,
      input: checked,
      state: def.state.parse({}),
    });
    return this.execute(row, def, { ...opts, resumed: false });
  }

  async resume(runId: string, opts: RunOptions = {}): Promise<RunHandle> {
    const row = this.repo.resolve(runId);
    if (row.parentRunId) {
      throw new WorkflowRunError(
        `run ${row.id} is a sub-workflow of run ${row.parentRunId}: resume that one (it resumes this)`,
      );
    }
    if (row.status === 'completed')
      throw new WorkflowRunError(`run ${row.id} has already completed`, 'finished');
    const def = await this.opts.definitions.forRun(row);
    return this.execute(row, def, { ...opts, resumed: row.status !== 'pending' });
  }

  private execute(
    row: RunRow,
    def: WorkflowDefinition,
    opts: RunOptions & { resumed: boolean; signal?: AbortSignal; traceParent?: TraceParent },
  ): RunHandle {
    const repo = this.repo;
    const owner: LeaseOwner = { id: randomUUID(), ...thisProcess() };
    const taken = repo.acquire(row.id, owner, HOLD_TTL_MS);
    if (!taken.ok) {
      throw new WorkflowRunError(
        `run ${row.id} is being run by process ${taken.holder.pid} on ${taken.holder.host}; ` +
          `wait for it, or stop it with tea workflow cancel ${row.id}`,
        'busy',
      );
    }
    repo.patch(row.id, { status: 'running', error: null });
    const controller = new AbortController();
    const stopWithParent = (): void => controller.abort();
    opts.signal?.addEventListener('abort', stopWithParent, { once: true });
    if (opts.signal?.aborted) controller.abort();
    const heartbeat = setInterval(() => {
      const r = repo.renew(row.id, owner.id, HOLD_TTL_MS);
      if (r.cancelRequested || !r.held) controller.abort();
    }, this.opts.heartbeatMs ?? 1000);
    heartbeat.unref();
    const journal = new SqliteJournal(repo, row.id, repo.checkpoints.list(row.id), (seq, nodeKey, event) =>
      this.emit({ type: 'checkpoint', runId: row.id, seq, nodeKey, event }),
    );
    const deps: EngineDeps = {
      agents: this.opts.agents,
      tools: this.opts.tools,
      ...(this.opts.approvals ? { approvals: this.opts.approvals } : {}),
      ...(opts.decisions ? { decisions: opts.decisions } : {}),
      subWorkflow: this.subWorkflow,
      now: this.opts.now ?? Date.now,
      sleep: this.opts.sleep ?? abortableSleep,
      emit: (e) => this.emit(e),
    };
    this.emit({
      type: 'run_start',
      runId: row.id,
      workflow: row.workflow,
      resumed: opts.resumed,
      ...(row.parentRunId ? { parentRunId: row.parentRunId } : {}),
    });
    const input = (row.input ?? {}) as Record<string, unknown>;
    // Each start or resume is one invoke_workflow span, filed under the run's id (a
    // sub-workflow's nests under its parent's node).
    const traced = traceWorkflow(
      {
        name: row.workflow,
        runId: row.id,
        ...(this.opts.tracer ? { tracer: this.opts.tracer } : {}),
        ...(opts.traceParent ? { parent: opts.traceParent } : {}),
        attributes: { 'tea.workflow.resumed': opts.resumed },
      },
      (traceParent) =>
        new Engine(def, row.id, input, journal, { ...deps, traceParent }, controller.signal).run(),
    );
    const done = traced
      .catch(
        (e: unknown): Outcome => ({
          status: 'failed',
          error: `internal error: ${(e as Error).message}`,
          state: {},
        }),
      )
      .then((outcome) => this.finish(row.id, outcome))
      .finally(() => {
        clearInterval(heartbeat);
        opts.signal?.removeEventListener('abort', stopWithParent);
        repo.release(row.id, owner.id);
        this.active.delete(row.id);
      });
    this.active.set(row.id, { controller, done });
    return { runId: row.id, done };
  }

  private finish(runId: string, o: Outcome): RunOutcome {
    const error = o.status === 'failed' ? o.error : o.status === 'cancelled' ? 'cancelled' : null;
    this.repo.patch(runId, {
      status: o.status,
      error,
      ...(o.status === 'completed' ? { output: o.output } : {}),
      ...(Object.keys(o.state).length > 0 || o.status === 'completed' ? { state: o.state } : {}),
    });
    const out: RunOutcome = {
      runId,
      status: o.status,
      state: o.state,
      ...(o.status === 'completed' ? { output: o.output } : {}),
      ...(o.status === 'failed' ? { error: o.error } : {}),
      ...(o.status === 'waiting' ? { waitingFor: { nodeKey: o.nodeKey, question: o.question } } : {}),
    };
    this.emit({
      type: 'run_end',
      runId,
      status: o.status,
      ...(out.output !== undefined ? { output: out.output } : {}),
      ...(out.error ? { error: out.error } : {}),
    });
    return out;
  }

  private readonly subWorkflow: SubWorkflowPort = async (req) => {
    const repo = this.repo;
    let depth = 1;
    for (let p = repo.get(req.parentRunId); p?.parentRunId; p = repo.get(p.parentRunId)) depth++;
    if (depth >= MAX_DEPTH) {
      return {
        status: 'failed',
        error: `sub-workflows nest deeper than ${MAX_DEPTH} (does "${req.workflow}" call itself?)`,
      };
    }
    let row = repo.get(req.runId);
    if (row?.status === 'completed') return { status: 'completed', output: row.output };
    let def: WorkflowDefinition;
    try {
      def = row
        ? await this.opts.definitions.forRun(row)
        : await this.opts.definitions.resolve(req.workflow, req.from);
      row ??= repo.create({
        id: req.runId,
        workflow: def.name,
        source: def.source.file,
        definition: def.source.kind === 'module' ? null : (def.source.text ?? null),
        defHash: def.source.hash,
        cwd: this.opts.cwd,
        input: checkInput(def, req.input),
        state: def.state.parse({}),
        parentRunId: req.parentRunId,
        parentNode: req.parentNode,
      });
    } catch (e) {
      return { status: 'failed', error: (e as Error).message };
    }
    const resumed = row.status !== 'running' || repo.checkpoints.list(row.id, 1).length > 0;
    const handle = this.execute(row, def, {
      resumed,
      signal: req.signal,
      ...(req.traceParent ? { traceParent: req.traceParent } : {}),
      ...(req.decisions ? { decisions: req.decisions } : {}),
    });
    return handle.done;
  };

  async cancel(runId: string): Promise<{ runId: string; result: 'cancelled' | 'requested' | 'finished' }> {
    const row = this.repo.resolve(runId);
    if (row.status === 'completed' || row.status === 'failed' || row.status === 'cancelled') {
      return { runId: row.id, result: 'finished' };
    }
    const mine = this.active.get(row.id);
    if (mine) {
      mine.controller.abort();
      await mine.done;
      return { runId: row.id, result: 'cancelled' };
    }
    if (this.repo.holderLive(row.id)) {
      this.repo.requestCancel(row.id);
      return { runId: row.id, result: 'requested' };
    }
    const stop = (id: string): void => {
      for (const child of this.repo.children(id)) if (child.status !== 'completed') stop(child.id);
      this.repo.patch(id, { status: 'cancelled', error: 'cancelled' });
    };
    stop(row.id);
    this.emit({ type: 'run_end', runId: row.id, status: 'cancelled', error: 'cancelled' });
    return { runId: row.id, result: 'cancelled' };
  }

  status(runId: string): RunStatusView {
    const run = this.repo.resolve(runId);
    const status = runView(run, this.active.has(run.id) || this.repo.holderLive(run.id));
    return {
      run,
      status,
      nodes: nodeViews(this.repo.checkpoints.list(run.id), status),
      children: this.repo.children(run.id),
    };
  }

  history(runId: string): CheckpointRow[] {
    return this.repo.checkpoints.list(this.repo.resolve(runId).id);
  }

  fork(runId: string, seq: number): RunRow {
    const from = this.repo.resolve(runId);
    if (from.parentRunId)
      throw new WorkflowRunError(`run ${from.id} is a sub-workflow: fork its parent ${from.parentRunId}`);
    const all = this.repo.checkpoints.list(from.id);
    if (!all.some((c) => c.seq === seq)) {
      const range = all.length > 0 ? `1–${all.at(-1)!.seq}` : 'none yet';
      throw new WorkflowRunError(
        `run ${from.id} has no checkpoint ${seq} (it has ${range}: tea workflow history ${from.id})`,
      );
    }
    return this.repo.fork(from, seq);
  }

  list(limit = 20): Array<RunRow & { view: RunView }> {
    return this.repo
      .list(limit)
      .map((r) => ({ ...r, view: runView(r, this.active.has(r.id) || this.repo.holderLive(r.id)) }));
  }
}

/**
 * The workflows service every face uses: the definitions there are (the project's,
 * the user's, the built-in flows), runs (list, get with a Mermaid graph, start,
 * resume, cancel, history, fork) and their events. Agent nodes run as roles, each in a
 * session of its own where nobody answers approvals; tool nodes run through the
 * permission entry point in the workflow's mode (at most the runtime's), refused
 * when they would need an answer.
 */

import type { Tracer } from '../agent/trace.js';
import { didYouMean } from '../config/suggest.js';
import type { RoleNodeRunner } from '../multi/node-runner.js';
import { narrower } from '../multi/role-run.js';
import { statusById } from '../multi/workflow/history.js';
import {
  type ApprovalPort,
  type CatalogEntry,
  type RunHandle,
  type RunOptions,
  type RunStatusView,
  SqliteWorkflowRunner,
  type ToolNodeRunner,
  WorkflowCatalog,
  type WorkflowDefinition,
  type WorkflowEvent,
  WorkflowRunError,
} from '../multi/workflow/index.js';
import { mermaidGraph } from '../multi/workflow/mermaid.js';
import type { CheckpointRow, RunRow, Store } from '../store/index.js';
import type { PermissionMode, PermissionRule } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import { Channel } from '../util/channel.js';
import { runDirect } from './tool-run.js';

export type { CheckpointRow, RunRow } from '../store/index.js';

export interface WorkflowsOptions {
  /** Where invoke_workflow spans go (the runtime's tracer). */
  tracer?: Tracer;
  store: () => Store;
  cwd: string;
  home: string;
  /** Runs agent nodes (as roles, in sessions where nobody answers approvals). */
  agents: RoleNodeRunner;
  tools: ToolRegistry;
  permissions: { mode: PermissionMode; rules: readonly PermissionRule[]; roots: readonly string[] };
  /** Asks the user about `wait` approvals; absent: such a run waits for `resume` with a decision. */
  approvals?: ApprovalPort;
  /** Replaces the built-in flows' directory (tests). */
  builtins?: string;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  heartbeatMs?: number;
}

export interface RunDetails extends RunStatusView {
  /** The workflow's Mermaid flowchart, nodes marked by their status in this run. */
  graph: string;
  /** The definition changed since the run started (a module edited since). */
  changed: boolean;
}

function toolRunner(opts: WorkflowsOptions): ToolNodeRunner {
  const { tools, permissions } = opts;
  return {
    async run(req) {
      const tool = await tools.load(req.tool);
      if (!tool) {
        return {
          status: 'error',
          output: `[ERROR] no tool named "${req.tool}"${didYouMean(req.tool, tools.names())}`,
        };
      }
      const parsed = await tool.parameters.safeParseAsync(req.args);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`);
        return { status: 'error', output: `[ERROR] invalid arguments for ${req.tool}: ${issues.join('; ')}` };
      }
      const r = await runDirect(tool, req.args, parsed.data, {
        tools,
        cwd: opts.cwd,
        mode: narrower(permissions.mode, req.mode),
        rules: permissions.rules,
        roots: permissions.roots,
        signal: req.signal,
      });
      if (!r.ran) {
        const how = r.rerun ? `; to let it run: ${r.rerun}` : '';
        return { status: 'denied', output: `[ERROR] ${r.label} was refused (${r.verdict.reason})${how}` };
      }
      const status = r.status === 'ok' ? 'completed' : r.status === 'cancelled' ? 'cancelled' : r.status;
      return { status: status === 'denied' ? 'denied' : status, output: r.output };
    },
  };
}

export class WorkflowsService {
  readonly catalog: WorkflowCatalog;
  readonly runner: SqliteWorkflowRunner;
  private readonly agents: RoleNodeRunner;
  private readonly toolNames: () => string[];

  constructor(opts: WorkflowsOptions) {
    this.catalog = new WorkflowCatalog({
      cwd: opts.cwd,
      home: opts.home,
      ...(opts.builtins ? { builtins: opts.builtins } : {}),
    });
    this.agents = opts.agents;
    this.toolNames = () => opts.tools.names();
    this.runner = new SqliteWorkflowRunner({
      store: opts.store,
      cwd: opts.cwd,
      agents: this.agents,
      tools: toolRunner(opts),
      definitions: this.catalog,
      ...(opts.approvals ? { approvals: opts.approvals } : {}),
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.sleep ? { sleep: opts.sleep } : {}),
      ...(opts.heartbeatMs ? { heartbeatMs: opts.heartbeatMs } : {}),
      ...(opts.tracer ? { tracer: opts.tracer } : {}),
    });
  }

  /** Every workflow file (project, user, built-in). */
  definitions(): Promise<CatalogEntry[]> {
    return this.catalog.list();
  }

  /** One definition by name or path (validated). */
  definition(nameOrPath: string): Promise<WorkflowDefinition> {
    return this.catalog.resolve(nameOrPath);
  }

  runs(limit = 20) {
    return this.runner.list(limit);
  }

  async get(runId: string): Promise<RunDetails> {
    const view = this.runner.status(runId);
    const def = await this.catalog.forRun(view.run);
    return {
      ...view,
      graph: mermaidGraph(def, statusById(view.nodes)),
      changed: def.source.hash !== view.run.defHash,
    };
  }

  async start(nameOrPath: string, input: Record<string, unknown>, opts: RunOptions = {}): Promise<RunHandle> {
    const def = await this.catalog.resolve(nameOrPath);
    this.checkNames(def);
    return this.runner.start(def, input, opts);
  }

  /** The roles and tools a definition names exist (before anything runs or a run is stored). */
  private checkNames(def: WorkflowDefinition): void {
    const problems: string[] = [];
    const roles = this.agents.roleNames();
    const tools = this.toolNames();
    for (const [id, node] of Object.entries(def.nodes)) {
      if (node.kind === 'agent' && !roles.includes(node.role))
        problems.push(`node "${id}": no role named "${node.role}"${didYouMean(node.role, roles)}`);
      if (node.kind === 'tool' && !tools.includes(node.tool))
        problems.push(`node "${id}": no tool named "${node.tool}"${didYouMean(node.tool, tools)}`);
    }
    if (problems.length > 0)
      throw new WorkflowRunError(`${def.source.file}: ${problems.join('; ')}`, 'invalid');
  }

  /**
   * Goes on with a run; `decision` answers the approvals it waits for now (in it or
   * its sub-runs), true to approve.
   */
  resume(runId: string, opts: RunOptions & { decision?: boolean } = {}): Promise<RunHandle> {
    const { decision, ...rest } = opts;
    if (decision === undefined) return this.runner.resume(runId, rest);
    const decisions: Record<string, boolean> = { ...rest.decisions };
    const collect = (id: string): void => {
      const view = this.runner.status(id);
      for (const n of view.nodes)
        if (n.kind === 'wait' && n.status === 'waiting') decisions[n.key] = decision;
      for (const child of view.children) collect(child.id);
    };
    collect(runId);
    return this.runner.resume(runId, { ...rest, decisions });
  }

  cancel(runId: string) {
    return this.runner.cancel(runId);
  }

  history(runId: string): CheckpointRow[] {
    return this.runner.history(runId);
  }

  fork(runId: string, seq: number): RunRow {
    return this.runner.fork(runId, seq);
  }

  subscribe(listener: (event: WorkflowEvent) => void): () => void {
    return this.runner.subscribe(listener);
  }

  /**
   * The events of one run (and its sub-runs) until it ends or waits, or until `signal`
   * aborts (a listener that went away: the subscription ends with it).
   */
  events(runId: string, signal?: AbortSignal): AsyncIterable<WorkflowEvent> {
    const channel = new Channel<WorkflowEvent>();
    const children = new Set<string>();
    const stop = (): void => {
      off();
      channel.close();
    };
    const off = this.subscribe((e) => {
      if (
        e.type === 'run_start' &&
        e.parentRunId !== undefined &&
        (e.parentRunId === runId || children.has(e.parentRunId))
      ) {
        children.add(e.runId);
      }
      if (e.runId !== runId && !children.has(e.runId)) return;
      channel.push(e);
      if (e.type === 'run_end' && e.runId === runId) {
        signal?.removeEventListener('abort', stop);
        stop();
      }
    });
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
    return channel;
  }

  /** For a face about to exit: lets the agent sessions' background jobs finish (at most `graceMs`). */
  settle(graceMs: number): Promise<void> {
    return this.agents.settle(graceMs);
  }
}

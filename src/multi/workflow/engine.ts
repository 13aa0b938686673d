/**
 * Runs a workflow definition over a journal. The same code serves a new run and a
 * resumed one: a node with a completed result in the journal is not run, its result
 * is applied again, and everything else runs. Node keys are deterministic (a node's
 * id under its branch and loop iteration), branches work on their own copy of the
 * state and are merged in branch order, so a resumed run ends with the same state
 * as one that was never interrupted.
 */
import type { RunPatch } from '../../store/index.js';
import { evalExpr, truthy } from './expr-eval.js';
import {
  branchFrame,
  type Frame,
  mergeBranches,
  NodeFailed,
  Parked,
  RunCancelled,
  scopeOf,
} from './frame.js';
import type { Journal, Recorded } from './journal.js';
import { fitValue, preview } from './schema.js';
import { agentStep, type EngineDeps, type StepContext, toolStep, waitStep, workflowStep } from './steps.js';
import { render } from './template.js';
import type {
  ConditionNode,
  EndNode,
  Expr,
  LoopNode,
  ParallelNode,
  WorkflowDefinition,
  WorkflowNode,
} from './types.js';

export type Outcome =
  | { status: 'completed'; output: unknown; state: Record<string, unknown> }
  | { status: 'failed'; error: string; state: Record<string, unknown> }
  | { status: 'waiting'; nodeKey: string; question: string; state: Record<string, unknown> }
  | { status: 'cancelled'; state: Record<string, unknown> };

/** Runs `tasks` with at most `limit` at once; after a failure no new one starts. Settles all that started. */
async function limited(limit: number, tasks: Array<() => Promise<unknown>>): Promise<unknown[]> {
  const errors: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length && errors.length === 0) {
      const task = tasks[next++]!;
      try {
        await task();
      } catch (e) {
        errors.push(e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return errors;
}

export class Engine {
  private readonly steps: StepContext;

  constructor(
    private readonly def: WorkflowDefinition,
    private readonly runId: string,
    private readonly input: Record<string, unknown>,
    private readonly journal: Journal,
    private readonly deps: EngineDeps,
    private readonly signal: AbortSignal,
  ) {
    this.steps = { runId, file: def.source.file, mode: def.mode, deps, journal, signal };
  }

  async run(): Promise<Outcome> {
    const frame: Frame = {
      state: this.def.state.parse({}) as Record<string, unknown>,
      nodes: {},
      prefix: '',
      top: true,
    };
    try {
      const end = await this.chain(this.def.start, frame);
      // The last node had no next: the final state is the output.
      const output = end ? end.output : structuredClone(frame.state);
      return { status: 'completed', output, state: frame.state };
    } catch (e) {
      if (e instanceof Parked)
        return { status: 'waiting', nodeKey: e.nodeKey, question: e.question, state: frame.state };
      if (e instanceof RunCancelled || this.signal.aborted)
        return { status: 'cancelled', state: frame.state };
      if (e instanceof NodeFailed) return { status: 'failed', error: e.message, state: frame.state };
      throw e;
    }
  }

  /** Runs nodes from `entry` until the frame's join, a node without next, or an end node. */
  private async chain(entry: string, frame: Frame): Promise<{ output: unknown } | undefined> {
    let id: string | undefined = entry;
    while (id !== undefined && id !== frame.stopAt) {
      if (this.signal.aborted) throw new RunCancelled();
      const node: WorkflowNode = this.def.nodes[id]!;
      const key = frame.prefix + id;
      switch (node.kind) {
        case 'condition':
          id = this.condition(node, key, frame);
          break;
        case 'parallel':
          id = await this.parallel(node, key, frame);
          break;
        case 'loop':
          await this.loop(node, key, frame);
          id = node.next;
          break;
        case 'end':
          return { output: this.end(node, key, frame) };
        default:
          id = await this.step(node, key, frame);
      }
    }
    return undefined;
  }

  private topPatch(frame: Frame, extra: RunPatch = {}): RunPatch | undefined {
    return frame.top ? { state: frame.state, ...extra } : undefined;
  }

  private expr(e: Expr, frame: Frame, key: string, field: string): unknown {
    try {
      const scope = scopeOf(frame, this.input);
      return typeof e === 'function' ? e(scope) : evalExpr(e, scope);
    } catch (err) {
      throw new NodeFailed(key, `node "${key}": ${field}: ${(err as Error).message}`);
    }
  }

  /**
   * Writes a result into the frame: the node's entry in `nodes`, then (completed) its
   * `output` and `set` keys, all or none (a value that does not fit leaves the state as it was).
   */
  private apply(node: WorkflowNode, key: string, frame: Frame, rec: Recorded): void {
    // A failure let through (on_error: continue) writes no state: later nodes read nodes.<id>.status.
    if (rec.status === 'failed') {
      frame.nodes[node.id] = { output: rec.value, status: rec.status };
      return;
    }
    const draft = { ...frame.state };
    const write = (k: string, value: unknown, field: string): void => {
      const schema = this.def.state.shape[k];
      const fit = schema ? fitValue(schema, value) : { ok: true as const, value };
      if (!fit.ok) {
        throw new NodeFailed(
          key,
          `node "${key}": ${field} → state.${k}: ${fit.error} (the value was ${preview(value)})`,
        );
      }
      draft[k] = fit.value;
    };
    if (node.output) write(node.output, rec.value, 'output');
    const nodes = { ...frame.nodes, [node.id]: { output: rec.value, status: rec.status } };
    for (const [k, tpl] of Object.entries(node.set ?? {})) {
      let value: unknown;
      try {
        const scope = scopeOf({ ...frame, state: draft, nodes }, this.input, rec.value ?? null);
        value = render(tpl, scope);
      } catch (err) {
        throw new NodeFailed(key, `node "${key}": set.${k}: ${(err as Error).message}`);
      }
      write(k, value, `set.${k}`);
    }
    // In place: a loop body and its loop share one state object.
    Object.assign(frame.state, draft);
    frame.nodes[node.id] = { output: rec.value, status: rec.status };
  }

  /** Applies and records a result; a result that does not fit the state fails the node. */
  private settle(
    node: WorkflowNode,
    key: string,
    frame: Frame,
    rec: Recorded,
    reused: boolean,
    run?: RunPatch,
  ): void {
    try {
      this.apply(node, key, frame, rec);
    } catch (e) {
      if (!(e instanceof NodeFailed)) throw e;
      this.fail(
        node,
        key,
        frame,
        { ...rec, status: 'failed', meta: { ...rec.meta, error: e.message } },
        e.message,
      );
    }
    this.journal.finish(key, node, rec, frame.state, this.topPatch(frame, run));
    frame.last = rec.value;
    // A wait node's approval: faces say which way it went.
    const decided = node.kind === 'wait' && typeof rec.value === 'boolean' ? { approved: rec.value } : {};
    this.deps.emit({ ...this.nodeEnd(node, key), status: rec.status, reused, ...decided });
  }

  private nodeEnd(node: WorkflowNode, key: string) {
    return { type: 'node_end', runId: this.runId, nodeKey: key, nodeId: node.id, kind: node.kind } as const;
  }

  private fail(node: WorkflowNode, key: string, frame: Frame, rec: Recorded, message: string): never {
    this.journal.finish(key, node, rec, frame.state, this.topPatch(frame));
    this.deps.emit({ ...this.nodeEnd(node, key), status: 'failed', reused: false, error: message });
    throw new NodeFailed(key, message);
  }

  /** An agent, tool, wait or workflow node: its recorded result, or a run of it. Returns the next node. */
  private async step(node: WorkflowNode, key: string, frame: Frame): Promise<string | undefined> {
    const recorded = this.journal.result(key);
    if (recorded) {
      this.settle(node, key, frame, recorded, true);
      return recorded.route === 'rejected' && node.kind === 'wait' ? node.onReject : node.next;
    }
    this.deps.emit({ type: 'node_start', runId: this.runId, nodeKey: key, nodeId: node.id, kind: node.kind });
    const scope = scopeOf(frame, this.input);
    let rec: Recorded;
    try {
      if (node.kind === 'agent') rec = await agentStep(this.steps, node, key, scope);
      else if (node.kind === 'tool') rec = await toolStep(this.steps, node, key, scope);
      else if (node.kind === 'wait') rec = await waitStep(this.steps, node, key, scope);
      else if (node.kind === 'workflow') rec = await workflowStep(this.steps, node, key, scope);
      else throw new Error(`node kind ${node.kind} is not a step`);
    } catch (e) {
      if (e instanceof Parked || e instanceof RunCancelled) throw e;
      if (this.signal.aborted) throw new RunCancelled();
      rec = { status: 'failed', value: null, meta: { error: (e as Error).message } };
    }
    // Stopped by a cancel: nothing is recorded, so a resume runs the node again.
    if (this.signal.aborted && rec.status !== 'completed') throw new RunCancelled();
    if (rec.status === 'failed') {
      const message = `node "${key}" (${node.kind}) failed: ${String(rec.meta?.error ?? 'no reason given')}`;
      if (node.onError !== 'continue') this.fail(node, key, frame, rec, message);
      rec = { ...rec, continued: true };
    }
    this.settle(node, key, frame, rec, false);
    return rec.route === 'rejected' && node.kind === 'wait' ? node.onReject : node.next;
  }

  private condition(node: ConditionNode, key: string, frame: Frame): string {
    const recorded = this.journal.result(key);
    let label = recorded?.route;
    if (label === undefined) {
      const v = this.expr(node.when, frame, key, 'when');
      label = typeof v === 'string' ? v : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
    }
    const target = Object.hasOwn(node.routes, label) ? node.routes[label] : node.default;
    if (target === undefined) {
      const message =
        `node "${key}": the condition gave "${label}", which routes does not name (routes: ${Object.keys(node.routes).join(', ')})` +
        '; add it to routes or set default';
      this.fail(
        node,
        key,
        frame,
        { status: 'failed', value: label, route: label, meta: { error: message } },
        message,
      );
    }
    this.settle(
      node,
      key,
      frame,
      recorded ?? { status: 'completed', value: label, route: label },
      recorded !== undefined,
    );
    return target;
  }

  /** Runs the branches (at most `concurrency` at once), merges them in order, then the join. Returns the join's next. */
  private async parallel(node: ParallelNode, key: string, frame: Frame): Promise<string | undefined> {
    this.journal.start(key, node, { branches: node.branches.length }, true);
    const base = structuredClone(frame.state);
    const frames = node.branches.map((_, i) =>
      branchFrame(frame, `${frame.prefix}${node.id}[${i}]/`, node.join),
    );
    const errors = await limited(
      node.concurrency,
      node.branches.map((entry, i) => () => this.chain(entry, frames[i]!)),
    );
    if (errors.length > 0) {
      // A cancel wins over a failure, a failure over a wait for approval.
      const order = [RunCancelled, NodeFailed, Parked];
      const rank = (e: unknown): number => {
        const i = order.findIndex((kind) => e instanceof kind);
        return i < 0 ? order.length : i;
      };
      throw [...errors].sort((a, b) => rank(a) - rank(b))[0];
    }
    mergeBranches(frame, base, frames);
    const done = this.journal.result(key);
    this.settle(node, key, frame, done ?? { status: 'completed', value: null }, done !== undefined);
    const join = this.def.nodes[node.join]!;
    const joinKey = frame.prefix + join.id;
    const joined = this.journal.result(joinKey);
    const results = { status: 'completed', value: frames.map((f) => f.last ?? null) } as const;
    this.settle(join, joinKey, frame, joined ?? results, joined !== undefined);
    return join.next;
  }

  private async loop(node: LoopNode, key: string, frame: Frame): Promise<void> {
    this.journal.start(key, node, { max: node.max }, true);
    let i = 0;
    let met = false;
    for (; i < node.max && !met; i++) {
      if (node.while !== undefined && !truthy(this.expr(node.while, frame, key, 'while'))) {
        met = true;
        break;
      }
      const body: Frame = {
        ...frame,
        prefix: `${frame.prefix}${node.id}#${i}/`,
        loop: { index: i, count: node.max },
      };
      delete body.stopAt;
      await this.chain(node.body, body);
      frame.last = body.last;
      if (node.until !== undefined && truthy(this.expr(node.until, frame, key, 'until'))) met = true;
    }
    if (!met && node.until === undefined && node.while !== undefined) {
      met = !truthy(this.expr(node.while, frame, key, 'while'));
    }
    const guarded = (node.while !== undefined || node.until !== undefined) && !met;
    if (guarded && node.onMax === 'fail') {
      const cond = node.until !== undefined ? 'until' : 'while';
      const text = typeof node[cond] === 'string' ? ` (${node[cond]})` : '';
      const message =
        `node "${key}": the loop ran its max of ${node.max} iterations and ${cond}${text} ` +
        `${cond === 'until' ? 'still does not hold' : 'still holds'}; raise max or set on_max: continue`;
      this.fail(
        node,
        key,
        frame,
        { status: 'failed', value: i, meta: { error: message, guard: true } },
        message,
      );
    }
    const rec: Recorded = { status: 'completed', value: i, ...(guarded ? { meta: { guard: true } } : {}) };
    const done = this.journal.result(key);
    this.settle(node, key, frame, done ?? rec, done !== undefined);
  }

  private end(node: EndNode, key: string, frame: Frame): unknown {
    const recorded = this.journal.result(key);
    let value = recorded?.value;
    if (!recorded) {
      try {
        value =
          node.result === undefined
            ? structuredClone(frame.state)
            : render(node.result, scopeOf(frame, this.input));
      } catch (err) {
        throw new NodeFailed(key, `node "${key}": result: ${(err as Error).message}`);
      }
    }
    this.settle(node, key, frame, recorded ?? { status: 'completed', value }, recorded !== undefined, {
      output: value,
    });
    return value;
  }
}

/**
 * What a chain of nodes runs in: its state and finished nodes, the key prefix that
 * makes each node execution's key unique (`checks[1]/`, `fix#2/`), and how control
 * leaves the engine early (waiting for an approval, a failure, a cancel).
 */
import type { Scope } from './expr-eval.js';
import { equal } from './expr-eval.js';

export interface Frame {
  state: Record<string, unknown>;
  nodes: Scope['nodes'];
  /** Prepended to node ids to make node keys. */
  prefix: string;
  /** Where a branch ends: its parallel's join. */
  stopAt?: string;
  /** The innermost loop's iteration. */
  loop?: { index: number; count: number };
  /** The main flow (or a loop body in it): its state is the run's. */
  top: boolean;
  /** The result of the last node that ran in this chain (a branch's result at the join). */
  last?: unknown;
}

export function scopeOf(frame: Frame, input: Record<string, unknown>, result?: unknown): Scope {
  return {
    state: frame.state,
    input,
    nodes: frame.nodes,
    ...(result === undefined ? {} : { result }),
    ...(frame.loop ? { loop: frame.loop } : {}),
  };
}

/** A branch's own copy of its parallel's state and nodes. */
export function branchFrame(frame: Frame, prefix: string, stopAt: string): Frame {
  return {
    state: structuredClone(frame.state),
    nodes: structuredClone(frame.nodes),
    prefix,
    stopAt,
    ...(frame.loop ? { loop: frame.loop } : {}),
    top: false,
  };
}

/**
 * The branches' changes merged into `into`, in branch order (the same order however
 * they ran, so a resumed run ends with the same state): a key a later branch changed
 * wins over an earlier one's change.
 */
export function mergeBranches(into: Frame, base: Frame['state'], branches: readonly Frame[]): void {
  const baseNodes = { ...into.nodes };
  for (const b of branches) {
    for (const [k, v] of Object.entries(b.state)) if (!equal(v, base[k])) into.state[k] = v;
    for (const [k, v] of Object.entries(b.nodes)) if (!equal(v, baseNodes[k])) into.nodes[k] = v;
  }
}

/** The run waits for the user (an approval) at `nodeKey`. */
export class Parked extends Error {
  constructor(
    readonly nodeKey: string,
    readonly question: string,
  ) {
    super(`waiting for approval at ${nodeKey}: ${question}`);
    this.name = 'Parked';
  }
}

/** A node failed and its failure was not let through: the run fails. */
export class NodeFailed extends Error {
  constructor(
    readonly nodeKey: string,
    message: string,
  ) {
    super(message);
    this.name = 'NodeFailed';
  }
}

/** The run was cancelled (its signal aborted). */
export class RunCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'RunCancelled';
  }
}

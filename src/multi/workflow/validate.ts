/**
 * The graph of a definition checked before anything runs: every reference names a
 * node, each node belongs to one scope (the main flow, one branch of a parallel, or
 * one loop body), scopes have no cycles (repetition is a loop node, which has a
 * guard), `end` is in the main flow, and every expression parses and reads only
 * declared state and input keys and existing nodes.
 */
import { closest } from '../../config/suggest.js';
import { type DefinitionProblem, WorkflowDefinitionError } from './errors.js';
import { FUNCTIONS, SCOPE_NAMES } from './expr-eval.js';
import { type Ast, callsOf, ExprError, parseExpr, pathsOf } from './expr-parse.js';
import { templateExprs } from './template.js';
import type { WorkflowDefinition, WorkflowNode } from './types.js';

/** `; did you mean x?` for a near name only (a node or key name far from every other is just wrong). */
function didYouMean(word: string, names: readonly string[]): string {
  const near = closest(word, names);
  return near.length > 0 ? `; did you mean ${near.join(' or ')}?` : '';
}

/** A scope's id: `main`, `<parallel>[<i>]` for a branch, `<loop>#` for a body, nested with `>`. */
export type ScopeId = string;

export interface Scopes {
  /** Node id → its scope. */
  of: Map<string, ScopeId>;
}

function scopeLabel(scope: ScopeId): string {
  const last = scope.split('>').at(-1)!;
  const branch = /^(.*)\[(\d+)\]$/.exec(last);
  if (branch) return `branch ${Number(branch[2]) + 1} of "${branch[1]}"`;
  if (last.endsWith('#')) return `the body of loop "${last.slice(0, -1)}"`;
  return 'the main flow';
}

/** The nodes a node goes to in its own scope, with the key that names each edge. */
export function sameScopeEdges(node: WorkflowNode): Array<[key: string, target: string]> {
  const out: Array<[string, string]> = [];
  if (node.next) out.push(['next', node.next]);
  if (node.kind === 'condition') {
    for (const [label, target] of Object.entries(node.routes)) out.push([`routes.${label}`, target]);
    if (node.default) out.push(['default', node.default]);
  }
  if (node.kind === 'wait' && node.onReject) out.push(['on_reject', node.onReject]);
  if (node.kind === 'parallel') out.push(['join', node.join]);
  return out;
}

/** Assigns every node reachable from `start` to its scope; problems go to `out`. */
export function assignScopes(def: WorkflowDefinition, out: DefinitionProblem[]): Scopes {
  const of = new Map<string, ScopeId>();
  const walk = (entry: string, scope: ScopeId, stopAt?: string): void => {
    const stack = [entry];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (id === stopAt) continue;
      const node = def.nodes[id];
      if (!node) continue; // reported as a bad reference
      const held = of.get(id);
      if (held !== undefined) {
        if (held !== scope) {
          out.push({
            node: id,
            message: `is reached from ${scopeLabel(held)} and from ${scopeLabel(scope)}`,
            fix: 'a node belongs to one branch, loop body or the main flow: give each its own nodes, and end a branch at its join or with no next',
          });
        }
        continue;
      }
      of.set(id, scope);
      if (node.kind === 'parallel') {
        node.branches.forEach((b, i) => {
          walk(b, `${scope}>${id}[${i}]`, node.join);
        });
      }
      if (node.kind === 'loop') walk(node.body, `${scope}>${id}#`);
      for (const [, target] of sameScopeEdges(node).reverse()) stack.push(target);
    }
  };
  walk(def.start, 'main');
  return { of };
}

function findCycle(def: WorkflowDefinition, scopes: Scopes): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, 'open');
    path.push(id);
    const node = def.nodes[id]!;
    for (const [, next] of sameScopeEdges(node)) {
      if (!def.nodes[next] || scopes.of.get(next) !== scopes.of.get(id)) continue;
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of scopes.of.keys()) {
    if (state.get(id) !== undefined) continue;
    const found = visit(id);
    if (found) return found;
  }
  return undefined;
}

/** The templates and expressions of a node, by the key that holds each. */
function exprsOf(node: WorkflowNode): Array<{ key: string; asts: () => Ast[] }> {
  const out: Array<{ key: string; asts: () => Ast[] }> = [];
  const tpl = (key: string, v: unknown): void => {
    if (typeof v === 'string') out.push({ key, asts: () => templateExprs(v) });
    else if (Array.isArray(v)) for (const [i, x] of v.entries()) tpl(`${key}[${i}]`, x);
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) tpl(`${key}.${k}`, x);
  };
  const expr = (key: string, v: unknown): void => {
    if (typeof v === 'string') out.push({ key, asts: () => [parseExpr(v)] });
  };
  for (const [k, v] of Object.entries(node.set ?? {})) tpl(`set.${k}`, v);
  switch (node.kind) {
    case 'agent':
      tpl('prompt', node.prompt);
      break;
    case 'tool':
      tpl('args', node.args);
      break;
    case 'condition':
      expr('when', node.when);
      break;
    case 'loop':
      expr('while', node.while);
      expr('until', node.until);
      break;
    case 'wait':
      tpl('seconds', node.seconds);
      tpl('approval', node.approval);
      break;
    case 'workflow':
      tpl('input', node.input);
      break;
    case 'end':
      tpl('result', node.result);
      break;
    default:
      break;
  }
  return out;
}

function checkExprs(
  def: WorkflowDefinition,
  node: WorkflowNode,
  /** Undefined for a node not reached (its other problems are still worth naming). */
  scope: ScopeId | undefined,
  out: DefinitionProblem[],
): void {
  const stateKeys = Object.keys(def.state.shape);
  const inputKeys = Object.keys(def.input.shape);
  const nodeIds = Object.keys(def.nodes);
  for (const { key, asts } of exprsOf(node)) {
    const p = (message: string, fix?: string): void => {
      out.push({ node: node.id, key, message, ...(fix ? { fix } : {}) });
    };
    let list: Ast[];
    try {
      list = asts();
    } catch (e) {
      if (!(e instanceof ExprError)) throw e;
      p(e.message, 'see README "Workflows" (expressions)');
      continue;
    }
    for (const ast of list) {
      for (const fn of callsOf(ast)) {
        if (!Object.hasOwn(FUNCTIONS, fn))
          p(`unknown function ${fn}()${didYouMean(fn, Object.keys(FUNCTIONS))}`);
      }
      for (const [root, first] of pathsOf(ast)) {
        if (!(SCOPE_NAMES as readonly string[]).includes(root!)) {
          p(`unknown name "${root}"${didYouMean(root!, SCOPE_NAMES)}`, `read ${SCOPE_NAMES.join(', ')}`);
        } else if (root === 'state' && first !== undefined && !stateKeys.includes(first)) {
          p(
            `state.${first} is not declared${didYouMean(first, stateKeys)}`,
            `declare it under state:, e.g. ${first}: string`,
          );
        } else if (root === 'input' && first !== undefined && !inputKeys.includes(first)) {
          p(
            `input.${first} is not declared${didYouMean(first, inputKeys)}`,
            `declare it under input:, e.g. ${first}: string`,
          );
        } else if (root === 'nodes' && first !== undefined && !nodeIds.includes(first)) {
          p(`nodes.${first}: no such node${didYouMean(first, nodeIds)}`);
        } else if (root === 'result' && !key.startsWith('set.')) {
          p(
            '"result" is the node\'s own result: only its set: can read it',
            'read the state key the node wrote instead',
          );
        } else if (root === 'loop' && scope !== undefined && !scope.includes('#')) {
          p('"loop" is only set inside a loop body');
        }
      }
    }
  }
}

/** Throws a WorkflowDefinitionError listing every problem of `def`'s graph. */
export function validateDefinition(
  def: WorkflowDefinition,
  file: string,
  lineOf: (node: string) => number | undefined = () => undefined,
): Scopes {
  const out: DefinitionProblem[] = [];
  const ids = Object.keys(def.nodes);
  const stateKeys = Object.keys(def.state.shape);
  if (!def.nodes[def.start]) {
    out.push({ key: 'start', message: `no node named "${def.start}"${didYouMean(def.start, ids)}` });
  }
  const joins = new Map<string, string>();
  for (const node of Object.values(def.nodes)) {
    const p = (key: string | undefined, message: string, fix?: string): void => {
      out.push({ node: node.id, ...(key ? { key } : {}), message, ...(fix ? { fix } : {}) });
    };
    const refs: Array<[string, string]> = sameScopeEdges(node);
    if (node.kind === 'parallel')
      for (const [i, b] of node.branches.entries()) refs.push([`branches[${i}]`, b]);
    if (node.kind === 'loop') refs.push(['body', node.body]);
    for (const [key, target] of refs) {
      const to = def.nodes[target];
      if (!to) p(key, `no node named "${target}"${didYouMean(target, ids)}`);
      else if (to.kind === 'join' && !(node.kind === 'parallel' && key === 'join')) {
        p(
          key,
          `"${target}" is a join: only its parallel goes there (a branch ends at it by itself)`,
          'leave out next on the last node of a branch, or set next to the join',
        );
      }
    }
    if (node.kind === 'parallel') {
      const join = def.nodes[node.join];
      if (join && join.kind !== 'join')
        p(
          'join',
          `"${node.join}" is a ${join.kind} node, not a join`,
          `add ${node.join}: { kind: join, next: … }`,
        );
      const other = joins.get(node.join);
      if (other)
        p(
          'join',
          `"${node.join}" is already the join of parallel "${other}"`,
          'give each parallel its own join node',
        );
      joins.set(node.join, node.id);
      if (node.concurrency < 1) p('concurrency', 'must be at least 1');
    }
    if (node.kind === 'loop' && !(Number.isInteger(node.max) && node.max >= 1)) {
      p(
        'max',
        `expected a whole number ≥ 1, got ${String(node.max)}`,
        'set max: to the most iterations the loop may run',
      );
    }
    for (const key of [node.output, ...Object.keys(node.set ?? {})]) {
      if (key !== undefined && !stateKeys.includes(key)) {
        p(
          node.output === key ? 'output' : `set.${key}`,
          `"${key}" is not a state key${didYouMean(key, stateKeys)}`,
          `declare it under state:, e.g. ${key}: string`,
        );
      }
    }
  }
  for (const [id, node] of Object.entries(def.nodes)) {
    if (node.kind === 'join' && !joins.has(id))
      out.push({
        node: id,
        message: 'is the join of no parallel',
        fix: `name it in a parallel node: join: ${id}`,
      });
  }
  // A broken reference leaves nodes unreached: that is one problem, said once.
  const brokenRefs = out.length > 0;
  const scopes = assignScopes(def, out);
  for (const id of ids) {
    const scope = scopes.of.get(id);
    const node = def.nodes[id]!;
    if (scope === undefined) {
      checkExprs(def, node, undefined, out);
      if (!brokenRefs && (node.kind !== 'join' || joins.has(id)))
        out.push({
          node: id,
          message: `is never reached from the start node "${def.start}"`,
          fix: 'link it with next, routes, branches or body, or remove it',
        });
      continue;
    }
    if (node.kind === 'end' && scope !== 'main') {
      out.push({
        node: id,
        message: `an end node ends the whole run, but this one is in ${scopeLabel(scope)}`,
        fix: 'leave out next on the last node of a branch or loop body instead',
      });
    }
    checkExprs(def, node, scope, out);
  }
  const cycle = out.length === 0 ? findCycle(def, scopes) : undefined;
  if (cycle) {
    out.push({
      node: cycle[0],
      message: `the nodes ${cycle.join(' → ')} form a cycle`,
      fix: 'repeat work with a loop node (it has a max guard)',
    });
  }
  if (out.length > 0) {
    throw new WorkflowDefinitionError(
      file,
      out.map((p) =>
        p.node && p.line === undefined ? { ...p, ...(lineOf(p.node) ? { line: lineOf(p.node)! } : {}) } : p,
      ),
    );
  }
  return scopes;
}

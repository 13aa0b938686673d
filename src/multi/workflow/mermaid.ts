/**
 * A workflow as a Mermaid flowchart, each node marked and coloured by its status in
 * a run (✓ completed, ✗ failed, ▶ running, ⏸ waiting, ⚠ interrupted; none: not reached).
 */
import type { NodeRunStatus } from './history.js';
import type { WorkflowDefinition, WorkflowNode } from './types.js';

const MARK: Record<NodeRunStatus, string> = {
  completed: '✓ ',
  failed: '✗ ',
  running: '▶ ',
  waiting: '⏸ ',
  interrupted: '⚠ ',
};

const STYLE: Record<NodeRunStatus, string> = {
  completed: 'fill:#d3f9d8,stroke:#2b8a3e',
  failed: 'fill:#ffe3e3,stroke:#c92a2a',
  running: 'fill:#fff3bf,stroke:#e67700',
  waiting: 'fill:#e7f5ff,stroke:#1971c2',
  interrupted: 'fill:#ffe8cc,stroke:#d9480f',
};

function label(node: WorkflowNode, status: NodeRunStatus | undefined): string {
  const what =
    node.kind === 'agent'
      ? `agent: ${node.role}`
      : node.kind === 'tool'
        ? `tool: ${node.tool}`
        : node.kind === 'workflow'
          ? `workflow: ${node.workflow}`
          : node.kind === 'loop'
            ? `loop ≤ ${node.max}`
            : node.kind;
  const text = `${status ? MARK[status] : ''}${node.title ?? node.id}<br/>${what}`;
  return `"${text.replace(/"/g, '#quot;')}"`;
}

function shape(node: WorkflowNode, text: string): string {
  switch (node.kind) {
    case 'condition':
      return `{${text}}`;
    case 'parallel':
    case 'join':
      return `[[${text}]]`;
    case 'loop':
      return `[/${text}/]`;
    case 'wait':
      return `([${text}])`;
    case 'end':
      return `((${text}))`;
    default:
      return `[${text}]`;
  }
}

/** Where a node goes on in its scope (a parallel: past its join). */
function successors(def: WorkflowDefinition, n: WorkflowNode): string[] {
  const out: string[] = [];
  if (n.kind === 'condition') out.push(...Object.values(n.routes), ...(n.default ? [n.default] : []));
  else if (n.kind === 'parallel') {
    const after = def.nodes[n.join]?.next;
    if (after) out.push(after);
  } else if (n.next) out.push(n.next);
  if (n.kind === 'wait' && n.onReject) out.push(n.onReject);
  return out;
}

/** The last nodes of a chain from `entry`: those that end it, or go to `stopAt` (a join). */
function tails(def: WorkflowDefinition, entry: string, stopAt?: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const id = stack.pop()!;
    const n = def.nodes[id];
    if (!n || id === stopAt || seen.has(id)) continue;
    seen.add(id);
    const next = successors(def, n);
    const inside = next.filter((x) => x !== stopAt);
    if (next.length === 0 || inside.length < next.length) out.push(id);
    stack.push(...inside);
  }
  return out;
}

/** The Mermaid flowchart of `def`, marked with the node statuses of a run (by node id). */
export function mermaidGraph(
  def: WorkflowDefinition,
  statuses: ReadonlyMap<string, NodeRunStatus> = new Map(),
): string {
  const ids = new Map(Object.keys(def.nodes).map((id, i) => [id, `n${i}`]));
  const m = (id: string): string => ids.get(id) ?? id;
  const lines = ['flowchart TD', `  start(( )) --> ${m(def.start)}`];
  for (const node of Object.values(def.nodes)) {
    lines.push(`  ${m(node.id)}${shape(node, label(node, statuses.get(node.id)))}`);
  }
  for (const node of Object.values(def.nodes)) {
    const from = m(node.id);
    if (node.next && def.nodes[node.next]?.kind !== 'join') lines.push(`  ${from} --> ${m(node.next)}`);
    switch (node.kind) {
      case 'condition':
        for (const [l, to] of Object.entries(node.routes)) lines.push(`  ${from} -->|${l}| ${m(to)}`);
        if (node.default) lines.push(`  ${from} -->|other| ${m(node.default)}`);
        break;
      case 'parallel':
        for (const b of node.branches) {
          lines.push(`  ${from} --> ${m(b)}`);
          for (const t of tails(def, b, node.join)) lines.push(`  ${m(t)} --> ${m(node.join)}`);
        }
        break;
      case 'loop':
        lines.push(`  ${from} -->|body| ${m(node.body)}`);
        for (const t of tails(def, node.body)) lines.push(`  ${m(t)} -.->|repeat| ${from}`);
        break;
      case 'wait':
        if (node.onReject) lines.push(`  ${from} -->|rejected| ${m(node.onReject)}`);
        break;
      default:
        break;
    }
  }
  for (const [status, style] of Object.entries(STYLE)) {
    const members = [...statuses].filter(([id, s]) => s === status && ids.has(id)).map(([id]) => m(id));
    if (members.length === 0) continue;
    lines.push(`  classDef ${status} ${style}`);
    lines.push(`  class ${members.join(',')} ${status}`);
  }
  return `${lines.join('\n')}\n`;
}

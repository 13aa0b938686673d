/**
 * `tea trace list` and `tea trace show <run>`: the traces kept per run (when no OTLP
 * endpoint takes them), as span trees with durations, tokens and outcomes.
 */
import type { TraceNode, TraceSpan, TraceTree } from '../runtime/traces.js';
import { openTraces } from '../runtime/traces.js';
import { EXIT } from './exit.js';
import { jsonText } from './json-out.js';

function when(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** `840 ms`, `1.25 s`, `2 min 5 s`. */
export function span(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A run id as listed: a session's UUID by its first 8 characters (a prefix `show` takes). */
function shortId(id: string): string {
  return UUID.test(id) ? id.slice(0, 8) : id;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function tokens(a: TraceSpan['attributes']): string | undefined {
  const input = num(a['gen_ai.usage.input_tokens']);
  const output = num(a['gen_ai.usage.output_tokens']);
  if (input === undefined && output === undefined) return undefined;
  const cached = num(a['gen_ai.usage.cache_read.input_tokens']);
  return `${input ?? 0} in${cached ? ` (${cached} cached)` : ''} / ${output ?? 0} out tokens`;
}

/** The facts of a span worth a glance, after its name and duration. */
function facts(s: TraceSpan): string[] {
  const a = s.attributes;
  const out: string[] = [];
  const op = a['gen_ai.operation.name'];
  if (op === 'chat') {
    const asked = a['gen_ai.request.model'];
    const answered = a['gen_ai.response.model'];
    if (answered !== undefined && answered !== asked) out.push(`answered by ${String(answered)}`);
  }
  const t = tokens(a);
  if (t) out.push(t);
  const cost = num(a['tea.usage.cost_usd']);
  if (cost) out.push(`$${cost.toFixed(4)}`);
  if (op === 'chat') {
    const finish = a['gen_ai.response.finish_reasons'];
    if (Array.isArray(finish) && finish.length > 0) out.push(finish.join(','));
    const retries = s.events?.filter((e) => e.name === 'retry').length ?? 0;
    if (retries > 0) out.push(`${retries} ${retries === 1 ? 'retry' : 'retries'}`);
    const fallback = s.events?.find((e) => e.name === 'fallback');
    if (fallback) out.push(`fell back to ${String(fallback.attributes?.to ?? '?')}`);
  }
  if (op === 'execute_tool' && s.status !== 2) out.push(String(a['tea.tool.status'] ?? '?'));
  if (op === 'invoke_agent') {
    if (a['gen_ai.agent.name'] !== 'tea')
      out.push(`session ${String(a['gen_ai.conversation.id'] ?? '?').slice(0, 8)}`);
    if (a['tea.stop_reason'] !== undefined) out.push(String(a['tea.stop_reason']));
  }
  if (a['tea.cancelled'] === true) out.push('cancelled');
  if (s.status === 2) {
    const type = a['error.type'] === undefined ? '' : `${String(a['error.type'])}: `;
    out.push(`ERROR ${type}${s.statusMessage ?? ''}`.trim());
  }
  return out;
}

function line(n: TraceNode): string {
  const parts = [n.span.name, span(n.span.durationMs), ...facts(n.span)];
  return `${parts.join('  ')}${n.orphan ? '  (its parent span was not kept: the process stopped first?)' : ''}`;
}

function tree(nodes: TraceNode[], prefix: string, out: string[]): void {
  nodes.forEach((n, i) => {
    const last = i === nodes.length - 1;
    out.push(`${prefix}${last ? '└─ ' : '├─ '}${line(n)}`);
    tree(n.children, `${prefix}${last ? '   ' : '│  '}`, out);
  });
}

/** One trace as text: a header line, then each root and its descendants. */
export function traceText(t: TraceTree): string {
  const out = [`trace ${t.traceId}  ${when(t.startMs)}  ${span(t.durationMs)}`];
  for (const root of t.roots) {
    out.push(line(root));
    tree(root.children, '', out);
  }
  return `${out.join('\n')}\n`;
}

/** A node for JSON: the span's fields, then its children. */
function jsonNode(n: TraceNode): Record<string, unknown> {
  return { ...n.span, ...(n.orphan ? { orphan: true } : {}), children: n.children.map(jsonNode) };
}

export async function traceShow(ref: string, opts: { json?: boolean }): Promise<number> {
  const { traces, close } = await openTraces();
  try {
    const run = traces.show(ref);
    if (opts.json) {
      const shown = { ...run, traces: run.traces.map((t) => ({ ...t, roots: t.roots.map(jsonNode) })) };
      process.stdout.write(jsonText(shown));
      return EXIT.OK;
    }
    const what =
      run.kind === 'session'
        ? `session "${run.title ?? '(untitled)'}"`
        : run.kind === 'workflow'
          ? 'workflow run'
          : 'run';
    const count = `${run.traces.length} trace${run.traces.length === 1 ? '' : 's'}, ${run.spans} spans`;
    process.stdout.write(`run ${run.runId}  ${what}  ${count}\n${run.note ? `(${run.note})\n` : ''}`);
    for (const t of run.traces) process.stdout.write(`\n${traceText(t)}`);
    return EXIT.OK;
  } finally {
    close();
  }
}

export async function traceList(opts: { limit: number; json?: boolean }): Promise<number> {
  const { traces, close } = await openTraces();
  try {
    const { runs, total, more } = traces.list(opts.limit);
    if (opts.json) {
      process.stdout.write(jsonText({ runs, total, more }));
      return EXIT.OK;
    }
    if (runs.length === 0) {
      process.stdout.write(
        'No traces kept yet. Every run keeps one (tea -p "…", then tea trace show <session>), ' +
          'unless OTEL_EXPORTER_OTLP_ENDPOINT sends them to a collector.\n',
      );
      return EXIT.OK;
    }
    for (const r of runs) {
      const counts = `${r.traces} trace${r.traces === 1 ? '' : 's'}  ${r.spans} spans`;
      const used = `${r.inputTokens} in / ${r.outputTokens} out tokens`;
      const errors = r.errors > 0 ? `  ${r.errors} failed` : '';
      process.stdout.write(
        `${shortId(r.runId)}  ${when(r.lastMs).slice(0, 16)}  ${r.root}  ${counts}  ${used}${errors}\n`,
      );
    }
    if (more > 0)
      process.stdout.write(`… ${more} more, older (${total} in all): tea trace list -n ${total}\n`);
    return EXIT.OK;
  } finally {
    close();
  }
}

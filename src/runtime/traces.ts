/**
 * The traces kept per run (runtime/tracing.ts, local mode), for faces: the runs that
 * have some, and one run's traces as span trees. A run is a top-level session (each
 * prompt one trace; its sub-agents' spans inside) or a workflow run.
 */
// Direct imports (not the config index) keep the YAML printer out of `tea trace`.
import { loadConfig } from '../config/load.js';
import {
  MIN_PREFIX_LENGTH,
  type SessionRow,
  type SpanRow,
  Store,
  type TraceRunSummary,
  TraceSpanRepo,
} from '../store/index.js';
import { defaultDbPath } from '../store/paths.js';
import { workspaceDir } from './directories.js';
import { RuntimeError } from './errors.js';
import { TRACE_RETENTION_DAYS } from './tracing.js';

export type { SpanRow as TraceSpan, TraceRunSummary } from '../store/index.js';

export interface TraceNode {
  span: SpanRow;
  children: TraceNode[];
  /** Its parent is not among the kept spans (a process stopped before the parent ended). */
  orphan?: boolean;
}

export interface TraceTree {
  traceId: string;
  startMs: number;
  durationMs: number;
  roots: TraceNode[];
}

export interface RunTraces {
  runId: string;
  /** `session`: a top-level session's id; `workflow`: a workflow run's. */
  kind: 'session' | 'workflow' | 'other';
  /** The session's title (`session`). */
  title?: string | null;
  /** How `ref` led here when it named something else (a sub-agent's session). */
  note?: string;
  spans: number;
  traces: TraceTree[];
}

/** The kept spans as trees, one per trace, oldest first; children in start order. */
export function traceTrees(rows: readonly SpanRow[]): TraceTree[] {
  const byTrace = new Map<string, SpanRow[]>();
  for (const r of rows) {
    const list = byTrace.get(r.traceId);
    if (list) list.push(r);
    else byTrace.set(r.traceId, [r]);
  }
  const trees: TraceTree[] = [];
  for (const [traceId, spans] of byTrace) {
    const nodes = new Map(spans.map((s) => [s.spanId, { span: s, children: [] } as TraceNode]));
    const roots: TraceNode[] = [];
    for (const node of nodes.values()) {
      const parentId = node.span.parentId;
      const parent = parentId === undefined ? undefined : nodes.get(parentId);
      if (parent) parent.children.push(node);
      else {
        if (parentId !== undefined) node.orphan = true;
        roots.push(node);
      }
    }
    const byStart = (a: TraceNode, b: TraceNode) => a.span.startMs - b.span.startMs;
    for (const node of nodes.values()) node.children.sort(byStart);
    roots.sort(byStart);
    const startMs = Math.min(...spans.map((s) => s.startMs));
    const endMs = Math.max(...spans.map((s) => s.startMs + s.durationMs));
    trees.push({ traceId, startMs, durationMs: endMs - startMs, roots });
  }
  return trees.sort((a, b) => a.startMs - b.startMs);
}

const NOT_KEPT =
  `traces are kept for ${TRACE_RETENTION_DAYS} days, and not at all while ` +
  'OTEL_EXPORTER_OTLP_ENDPOINT sends them to a collector';

export class TracesService {
  private repo: TraceSpanRepo | undefined;

  constructor(private readonly store: () => Store) {}

  private spans(): TraceSpanRepo {
    this.repo ??= new TraceSpanRepo(this.store().db);
    return this.repo;
  }

  /** The runs with kept traces, the most recently active first; `more`: how many older ones. */
  list(limit = 20): { runs: TraceRunSummary[]; total: number; more: number } {
    const runs = this.spans().runs(limit);
    const total = runs.length < limit ? runs.length : this.spans().countRuns();
    return { runs, total, more: total - runs.length };
  }

  /**
   * One run's traces. `ref`: a run id or a unique prefix of one, or a session id or
   * prefix (a sub-agent's session leads to its top-level session's run).
   */
  show(ref: string): RunTraces {
    const wanted = ref.trim();
    if (!wanted)
      throw new RuntimeError('usage', 'no run given: name a session id or a workflow run id (or a prefix)');
    const { runId, note } = this.resolve(wanted);
    const rows = this.spans().spansOf(runId);
    const session = this.store().sessions.get(runId);
    const traces = traceTrees(rows);
    const workflow = traces.some((t) => t.roots.some((r) => r.span.name.startsWith('invoke_workflow')));
    return {
      runId,
      kind: session ? 'session' : workflow ? 'workflow' : 'other',
      ...(session ? { title: session.title } : {}),
      ...(note ? { note } : {}),
      spans: rows.length,
      traces,
    };
  }

  private resolve(ref: string): { runId: string; note?: string } {
    const spans = this.spans();
    if (spans.has(ref)) return { runId: ref };
    if (ref.length >= MIN_PREFIX_LENGTH) {
      const ids = spans.runIdsStartingWith(ref, 6);
      if (ids.length === 1) return { runId: ids[0]! };
      if (ids.length > 1) {
        const shown = ids.slice(0, 5).join(', ');
        throw new RuntimeError(
          'not_found',
          `run id '${ref}' is an ambiguous prefix: matches ${shown}${ids.length > 5 ? ', …' : ''}; give more of it`,
        );
      }
    }
    let session: SessionRow;
    try {
      session = this.store().sessions.resolve(ref);
    } catch {
      throw new RuntimeError(
        'not_found',
        `no kept trace for '${ref}': not a session id or a run id with one (tea trace list shows the runs that have one; ${NOT_KEPT})`,
      );
    }
    let top = session;
    for (let parent = top.parentId; parent !== undefined; parent = top.parentId) {
      const up = this.store().sessions.get(parent);
      if (!up) break;
      top = up;
    }
    if (spans.has(top.id)) {
      return top.id === session.id
        ? { runId: top.id }
        : {
            runId: top.id,
            note: `session ${session.id} is a sub-agent's: its spans are in its top-level session's run`,
          };
    }
    // A session run inside another run (a workflow's agent node): found by its spans.
    const run = spans.runOfConversation(session.id);
    if (run === undefined)
      throw new RuntimeError('not_found', `no trace is kept for session ${session.id} (${NOT_KEPT})`);
    return { runId: run, note: `session ${session.id} ran inside run ${run}: its spans are there` };
  }
}

export interface OpenTraces {
  traces: TracesService;
  close(): void;
}

/** The kept traces, without touching any model (`tea trace`); config warnings go to stderr. */
export async function openTraces(cwd?: string): Promise<OpenTraces> {
  const config = await loadConfig({ cwd: workspaceDir(cwd), detectOllama: false });
  for (const warning of config.warnings) process.stderr.write(`tea: warning: ${warning}\n`);
  const store = Store.open(defaultDbPath(config.home), { backup: {} });
  return { traces: new TracesService(() => store), close: () => store.close() };
}

/**
 * Where the runtime's spans go, decided once from the environment:
 *
 * - `otlp`: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set;
 *   the OpenTelemetry SDK (loaded only then) exports them over OTLP/HTTP.
 * - `local` (the default): kept in tea's database per run, for `tea trace show <run>`;
 *   a few rows per prompt, written once the prompt ends, pruned after
 *   `TRACE_RETENTION_DAYS` days or beyond `TRACE_MAX_SPANS` spans.
 * - `off`: `OTEL_SDK_DISABLED=true`; spans go to the global OpenTelemetry API (a no-op
 *   unless the application embedding tea registered a tracer provider).
 * - `host`: the embedding application passed its own tracer (`RuntimeOptions.tracer`).
 */
import type { Tracer } from '../agent/trace.js';
import { type Store, TraceSpanRepo } from '../store/index.js';
import { LocalTracer } from './trace-local.js';

/** Kept spans older than this many days are dropped. */
export const TRACE_RETENTION_DAYS = 14;
/** At most this many spans are kept (the oldest go first). */
export const TRACE_MAX_SPANS = 100_000;
/** A long-running process prunes at most this often. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export type TracingMode = 'local' | 'otlp' | 'off' | 'host';

export interface Tracing {
  readonly mode: TracingMode;
  /** The traces endpoint (`otlp`). */
  readonly endpoint?: string;
  /** For the agents' services (undefined: the global OpenTelemetry API). */
  readonly tracer: Tracer | undefined;
  /** Writes or exports what is waiting (before the process exits). */
  close(): Promise<void>;
}

export interface TracingOptions {
  env: NodeJS.ProcessEnv;
  /** The database (opened on first use), for local keeping. */
  store: () => Store;
  warn: (message: string) => void;
  /** tea's version, on exported spans' resource. */
  version: string;
  /** The embedding application's own tracer. */
  tracer?: Tracer;
  /** Epoch milliseconds (tests). */
  now?: () => number;
}

/** The OTLP/HTTP traces endpoint the environment names, as the exporter will use it (undefined: none). */
export function otlpEndpoint(env: NodeJS.ProcessEnv): string | undefined {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (specific) return specific;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

function isUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export async function startTracing(opts: TracingOptions): Promise<Tracing> {
  const { env, warn } = opts;
  if (opts.tracer) return { mode: 'host', tracer: opts.tracer, close: async () => {} };
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') {
    return { mode: 'off', tracer: undefined, close: async () => {} };
  }
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((s) => s.trim().toLowerCase());
  const endpoint = exporters?.includes('none') ? undefined : otlpEndpoint(env);
  if (endpoint !== undefined && !isUrl(endpoint)) {
    const name = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
      ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
      : 'OTEL_EXPORTER_OTLP_ENDPOINT';
    warn(
      `${name} is not an http(s) URL (${endpoint}); traces are kept locally instead (tea trace show). ` +
        'Set it like http://localhost:4318',
    );
  } else if (endpoint !== undefined) {
    const { otlpTracing } = await import('./trace-otlp.js');
    const otlp = otlpTracing({ endpoint, version: opts.version, warn, env });
    return { mode: 'otlp', endpoint, tracer: otlp.tracer, close: () => otlp.close() };
  }
  return localTracing(opts);
}

function localTracing(opts: TracingOptions): Tracing {
  const now = opts.now ?? Date.now;
  let repo: TraceSpanRepo | undefined;
  let prunedAt = Number.NEGATIVE_INFINITY;
  const tracer = new LocalTracer({
    write: (spans) => {
      repo ??= new TraceSpanRepo(opts.store().db);
      repo.insert(spans);
      const at = now();
      if (at - prunedAt < PRUNE_EVERY_MS) return;
      prunedAt = at;
      repo.prune({ beforeMs: at - TRACE_RETENTION_DAYS * 24 * 60 * 60 * 1000, keep: TRACE_MAX_SPANS });
    },
    onError: opts.warn,
  });
  return {
    mode: 'local',
    tracer,
    close: async () => tracer.flush(),
  };
}

/**
 * Export over OTLP/HTTP (JSON) with the OpenTelemetry SDK: loaded only when an OTLP
 * endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`),
 * never on the way to a plain run's first request. The exporter reads the standard
 * environment itself (endpoints, `OTEL_EXPORTER_OTLP_HEADERS`, timeout, certificates);
 * the resource takes `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`.
 */
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/**
 * One export's time, retries included, unless `OTEL_EXPORTER_OTLP_TIMEOUT` says otherwise
 * (the SDK's own default, 10 s of retries, would hold a `tea -p` whose collector is down).
 */
export const OTLP_EXPORT_TIMEOUT_MS = 3000;
/** How long closing waits for the last spans to reach the collector. */
export const OTLP_CLOSE_WAIT_MS = 4000;

export interface OtlpTracing {
  tracer: Tracer;
  /** Exports what is waiting and stops (waits `OTLP_CLOSE_WAIT_MS` at most; says so when cut short). */
  close(): Promise<void>;
}

/** The exporter, telling `warn` (once) when a batch did not reach the collector. */
function reporting(inner: SpanExporter, endpoint: string, warn: (m: string) => void): SpanExporter {
  let told = false;
  return {
    export(spans: ReadableSpan[], done) {
      inner.export(spans, (result) => {
        // ExportResultCode.SUCCESS is 0.
        if (result.code !== 0 && !told) {
          told = true;
          const why = result.error?.message ?? 'no reason given';
          warn(`traces were not exported to ${endpoint}: ${why}`);
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    ...(inner.forceFlush ? { forceFlush: () => inner.forceFlush?.() ?? Promise.resolve() } : {}),
  };
}

export function otlpTracing(opts: {
  endpoint: string;
  version: string;
  warn: (message: string) => void;
  env: NodeJS.ProcessEnv;
}): OtlpTracing {
  const { env } = opts;
  const timeoutSet = Boolean(
    env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT?.trim() || env.OTEL_EXPORTER_OTLP_TIMEOUT?.trim(),
  );
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'tea-agent', 'service.version': opts.version }))
    .merge(detectResources({ detectors: [envDetector] }));
  const otlp = new OTLPTraceExporter(timeoutSet ? {} : { timeoutMillis: OTLP_EXPORT_TIMEOUT_MS });
  const exporter = reporting(otlp, opts.endpoint, opts.warn);
  const provider = new TracerProvider({ resource, spanProcessors: [new BatchSpanProcessor({ exporter })] });
  return {
    tracer: provider.getTracer('tea-agent', opts.version),
    async close() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), OTLP_CLOSE_WAIT_MS);
        timer.unref();
      });
      try {
        const how = await Promise.race([provider.shutdown().then(() => 'done' as const), late]);
        if (how === 'late')
          opts.warn(`the last traces did not reach ${opts.endpoint} within ${OTLP_CLOSE_WAIT_MS / 1000} s`);
      } catch (e) {
        opts.warn(`traces were not exported to ${opts.endpoint}: ${(e as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

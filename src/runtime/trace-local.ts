/**
 * A small OpenTelemetry tracer that keeps spans in tea's own database instead of
 * exporting them: what `tea trace show <run>` reads when no OTLP endpoint is set. It
 * implements the API's `Tracer` and `Span` (neither SDK nor API code: nothing to load);
 * finished spans are buffered and written in one transaction when an `invoke_*` span
 * ends (a prompt, a sub-agent's prompt, a workflow), when 64 are waiting, and at `flush`.
 */
import type {
  Attributes,
  Context,
  Exception,
  Link,
  Span,
  SpanContext,
  SpanKind,
  SpanOptions,
  SpanStatus,
  TimeInput,
  Tracer,
} from '@opentelemetry/api';
import { runIdOf } from '../agent/trace.js';
import {
  isValidSpanContext,
  ROOT_CONTEXT,
  SPAN_KIND_INTERNAL,
  STATUS_UNSET,
  spanOf,
  startActive,
} from '../agent/trace-context.js';
import type { SpanAttributeValue, SpanRow } from '../store/index.js';
import { monotonicMs } from '../util/monotonic.js';
import { randomHex } from '../util/random-id.js';

/** Spans waiting beyond this many are written without waiting for their prompt to end. */
const BATCH = 64;

/** Epoch ms at monotonic 0 (process.hrtime: the `performance` global would load perf_hooks at start). */
let origin: number | undefined;

function nowMs(): number {
  const mono = monotonicMs();
  origin ??= Date.now() - mono;
  return origin + mono;
}

/** Epoch milliseconds of an OpenTelemetry time (HrTime, epoch or performance ms, Date). */
function toMs(t: TimeInput | undefined): number {
  if (t === undefined) return nowMs();
  if (t instanceof Date) return t.getTime();
  if (Array.isArray(t)) return t[0] * 1000 + t[1] / 1e6;
  // A small number is `performance.now()` time (never from tea's own code).
  return t < 1e12 ? performance.timeOrigin + t : t;
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** A valid attribute value as stored (undefined: OpenTelemetry would drop it too). */
function cleanValue(v: unknown): SpanAttributeValue | undefined {
  if (isScalar(v)) return v;
  if (Array.isArray(v) && v.every(isScalar)) return [...v] as SpanAttributeValue;
  return undefined;
}

function cleanAttributes(into: Record<string, SpanAttributeValue>, attrs: Attributes | undefined): void {
  if (!attrs) return;
  for (const k in attrs) {
    const value = cleanValue(attrs[k]);
    if (value !== undefined) into[k] = value;
  }
}

class LocalSpan implements Span {
  private readonly attributes: Record<string, SpanAttributeValue> = {};
  private events: NonNullable<SpanRow['events']> | undefined;
  private status: SpanStatus = { code: STATUS_UNSET };
  private ended = false;

  constructor(
    private readonly tracer: LocalTracer,
    private readonly ctx: SpanContext,
    private name: string,
    private readonly kind: SpanKind,
    private readonly parentId: string | undefined,
    readonly runId: string,
    private readonly startMs: number,
    attributes: Attributes | undefined,
  ) {
    cleanAttributes(this.attributes, attributes);
  }

  spanContext(): SpanContext {
    return this.ctx;
  }

  setAttribute(key: string, value: unknown): this {
    const v = cleanValue(value);
    if (!this.ended && v !== undefined) this.attributes[key] = v;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    if (!this.ended) cleanAttributes(this.attributes, attributes);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const isTime =
      typeof attributesOrTime === 'number' ||
      Array.isArray(attributesOrTime) ||
      attributesOrTime instanceof Date;
    const attributes: Record<string, SpanAttributeValue> = {};
    if (!isTime) cleanAttributes(attributes, attributesOrTime as Attributes | undefined);
    this.events ??= [];
    this.events.push({
      name,
      atMs: toMs(isTime ? (attributesOrTime as TimeInput) : time),
      ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
    });
    return this;
  }

  addLink(_link: Link): this {
    return this;
  }

  addLinks(_links: Link[]): this {
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (!this.ended) this.status = status;
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const e = typeof exception === 'string' ? { message: exception } : exception;
    this.addEvent(
      'exception',
      {
        ...('name' in e && e.name ? { 'exception.type': e.name } : {}),
        ...(e.message ? { 'exception.message': e.message } : {}),
      },
      time,
    );
  }

  isRecording(): boolean {
    return !this.ended;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    const row: SpanRow = {
      traceId: this.ctx.traceId,
      spanId: this.ctx.spanId,
      runId: this.runId,
      name: this.name,
      kind: this.kind,
      startMs: this.startMs,
      durationMs: Math.max(0, toMs(endTime) - this.startMs),
      status: this.status.code,
      attributes: this.attributes,
    };
    if (this.parentId) row.parentId = this.parentId;
    if (this.status.message) row.statusMessage = this.status.message;
    if (this.events) row.events = this.events;
    this.tracer.ended(row);
  }
}

export interface LocalTracerOptions {
  /** Writes a batch of finished spans (one transaction). */
  write(spans: SpanRow[]): void;
  /** Told once when a batch could not be written (spans are never worth failing a turn for). */
  onError?(message: string): void;
}

/** An OpenTelemetry `Tracer` whose finished spans go to `write`, a batch at a time. */
export class LocalTracer implements Tracer {
  private buffer: SpanRow[] = [];
  private failed = false;

  constructor(private readonly opts: LocalTracerOptions) {}

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = ROOT_CONTEXT): Span {
    const parentSpan = options.root ? undefined : spanOf(ctx);
    const parent = parentSpan?.spanContext();
    const valid = parent !== undefined && isValidSpanContext(parent);
    const traceId = valid ? parent.traceId : randomHex(16);
    // traceFlags 1: sampled (every span is kept).
    const spanContext: SpanContext = { traceId, spanId: randomHex(8), traceFlags: 1 };
    const runId = runIdOf(ctx) ?? (parentSpan instanceof LocalSpan ? parentSpan.runId : traceId);
    return new LocalSpan(
      this,
      spanContext,
      name,
      options.kind ?? (SPAN_KIND_INTERNAL as SpanKind),
      valid ? parent.spanId : undefined,
      runId,
      options.startTime === undefined ? nowMs() : toMs(options.startTime),
      options.attributes,
    );
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    context: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...args: unknown[]): ReturnType<F> {
    // No ambient context here: `fn` gets its span, and passes it on as it needs.
    return startActive(this, name, args as [F]);
  }

  /** A span has ended: kept, and written now when it closes a prompt or a workflow. */
  ended(span: SpanRow): void {
    this.buffer.push(span);
    if (span.name.startsWith('invoke_') || this.buffer.length >= BATCH) this.flush();
  }

  /** Writes the spans waiting (at the end of a prompt, and before the process exits). */
  flush(): void {
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    try {
      this.opts.write(batch);
    } catch (e) {
      if (this.failed) return;
      this.failed = true;
      this.opts.onError?.(`trace spans were not kept: ${(e as Error).message}`);
    }
  }
}

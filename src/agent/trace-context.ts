/**
 * The few pieces of OpenTelemetry's API the agent needs at run time, without loading
 * the API package (its ~30 modules cost a few ms on the way to the first request): a
 * context, the span slot in it, and a tracer that records nothing. They interoperate
 * with the API and the SDK by contract: a context is anything with `getValue` /
 * `setValue` / `deleteValue`, and a span sits under the same global symbol the API uses,
 * so the SDK finds a parent set here and `trace.getSpan` finds one set by the SDK.
 * Only types are imported from the package.
 */
import type { Context, Span, SpanContext, SpanOptions, Tracer } from '@opentelemetry/api';

/** The key OpenTelemetry's API keeps the active span under (`Symbol.for`, shared by every copy). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** An immutable context: each value set is a link to the context it was set on. */
class LinkedContext implements Context {
  constructor(
    private readonly up: LinkedContext | undefined,
    private readonly key: symbol | undefined,
    private readonly value: unknown,
  ) {}

  getValue(key: symbol): unknown {
    for (let c: LinkedContext | undefined = this; c !== undefined; c = c.up)
      if (c.key === key) return c.value;
    return undefined;
  }

  setValue(key: symbol, value: unknown): Context {
    return new LinkedContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return new LinkedContext(this, key, undefined);
  }
}

/** The empty context: a span started in it is a trace's root. */
export const ROOT_CONTEXT: Context = new LinkedContext(undefined, undefined, undefined);

/** A key of our own in a context (`Symbol.for`, as the API makes them). */
export function contextKey(description: string): symbol {
  return Symbol.for(description);
}

/** The span `ctx` holds (the parent of spans started in it). */
export function spanOf(ctx: Context): Span | undefined {
  const span = ctx.getValue(SPAN_KEY);
  return span === undefined ? undefined : (span as Span);
}

/** `ctx` with `span` as its span. */
export function withSpan(ctx: Context, span: Span): Context {
  return ctx.setValue(SPAN_KEY, span);
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** Whether a span context names a real span (the no-op span's all-zero ids do not). */
export function isValidSpanContext(sc: SpanContext): boolean {
  return (
    TRACE_ID.test(sc.traceId) &&
    SPAN_ID.test(sc.spanId) &&
    /[1-9a-f]/.test(sc.traceId) &&
    /[1-9a-f]/.test(sc.spanId)
  );
}

/** OpenTelemetry's numbers for the kinds and statuses tea uses (the API's enums, as values). */
export const SPAN_KIND_INTERNAL = 0;
export const SPAN_KIND_CLIENT = 2;
export const STATUS_UNSET = 0;
export const STATUS_ERROR = 2;

/** `startActiveSpan`'s three call shapes, for tracers that implement it over `startSpan`. */
export function startActive<F extends (span: Span) => unknown>(
  tracer: Tracer,
  name: string,
  args: [F] | [SpanOptions, F] | [SpanOptions, Context, F],
): ReturnType<F> {
  const fn = args[args.length - 1] as (span: Span) => ReturnType<F>;
  const options = args.length > 1 ? (args[0] as SpanOptions) : {};
  const parent = args.length === 3 ? args[1] : ROOT_CONTEXT;
  return fn(tracer.startSpan(name, options, parent));
}

const INVALID: SpanContext = { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 };

/** A span that records nothing. */
const NOOP_SPAN: Span = {
  spanContext: () => INVALID,
  setAttribute: () => NOOP_SPAN,
  setAttributes: () => NOOP_SPAN,
  addEvent: () => NOOP_SPAN,
  addLink: () => NOOP_SPAN,
  addLinks: () => NOOP_SPAN,
  setStatus: () => NOOP_SPAN,
  updateName: () => NOOP_SPAN,
  end: () => {},
  isRecording: () => false,
  recordException: () => {},
};

/** A tracer whose spans record nothing: the agent's when none is configured. */
export const NOOP_TRACER: Tracer = {
  startSpan: () => NOOP_SPAN,
  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...args: unknown[]): ReturnType<F> {
    return startActive(NOOP_TRACER, name, args as [F]);
  },
};

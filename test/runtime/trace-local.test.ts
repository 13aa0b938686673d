/** The local tracer as an OpenTelemetry `Tracer`: parents, runs, attributes, events, batching, failures. */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { traceWorkflow } from '../../src/agent/trace.js';
import { LocalTracer } from '../../src/runtime/trace-local.js';
import type { SpanRow } from '../../src/store/index.js';

function tracerWithBatches() {
  const batches: SpanRow[][] = [];
  const tracer = new LocalTracer({ write: (spans) => batches.push(spans) });
  return { tracer, batches };
}

describe('LocalTracer', () => {
  it('nests spans under their parent context, in one trace, and writes them when an invoke_* span ends', () => {
    const { tracer, batches } = tracerWithBatches();
    const root = tracer.startSpan('invoke_agent tea', { kind: SpanKind.INTERNAL, attributes: { a: 1 } });
    const ctx = trace.setSpan(context.active(), root);
    const child = tracer.startSpan('chat m', { kind: SpanKind.CLIENT }, ctx);
    child.setAttributes({
      n: 2,
      list: ['x', 'y'],
      dropped: undefined,
      mixed: [1, 'two'] as unknown as string[],
    });
    child.addEvent('retry', { attempt: 1 });
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'bad' });
    child.end();
    child.setAttribute('late', true); // after end: ignored
    expect(batches).toHaveLength(0); // not written until the prompt's span ends
    root.end();
    expect(batches).toHaveLength(1);
    const [c, r] = batches[0]!;
    expect(r).toMatchObject({ name: 'invoke_agent tea', kind: 0, attributes: { a: 1 }, status: 0 });
    expect(r!.parentId).toBeUndefined();
    expect(r!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(r!.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(c).toMatchObject({
      name: 'chat m',
      kind: 2,
      traceId: r!.traceId,
      parentId: r!.spanId,
      runId: r!.traceId, // no run id in the context: the trace's own
      status: 2,
      statusMessage: 'bad',
      attributes: { n: 2, list: ['x', 'y'] },
    });
    expect(c!.events).toEqual([{ name: 'retry', atMs: expect.any(Number), attributes: { attempt: 1 } }]);
    expect(c!.startMs).toBeGreaterThanOrEqual(r!.startMs);
  });

  it('files spans under the run id their context carries, and runs startActiveSpan like the SDK', async () => {
    const { tracer, batches } = tracerWithBatches();
    const got = await traceWorkflow({ name: 'review', runId: 'wf-9', tracer }, async (parent) => {
      const inner = tracer.startActiveSpan('step', {}, parent, (span) => {
        span.end();
        return 'ran';
      });
      return inner;
    });
    expect(got).toBe('ran');
    const spans = batches.flat();
    expect(spans.map((s) => [s.name, s.runId])).toEqual([
      ['step', 'wf-9'],
      ['invoke_workflow review', 'wf-9'],
    ]);
    expect(spans[0]!.parentId).toBe(spans[1]!.spanId);
  });

  it('writes in batches of 64 while a long run goes on, and says once when spans cannot be kept', () => {
    const errors: string[] = [];
    let calls = 0;
    const tracer = new LocalTracer({
      write: () => {
        calls++;
        throw new Error('database is locked');
      },
      onError: (m) => errors.push(m),
    });
    for (let i = 0; i < 130; i++) tracer.startSpan(`execute_tool t${i}`).end();
    expect(calls).toBe(2);
    tracer.flush();
    expect(calls).toBe(3);
    tracer.flush(); // nothing waiting
    expect(calls).toBe(3);
    expect(errors).toEqual(['trace spans were not kept: database is locked']);
  });
});

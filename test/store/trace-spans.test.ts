/** Spans kept per run (migration 11) on a real SQLite file: written, read per run, summarised, pruned. */
import { describe, expect, it } from 'vitest';
import { type SpanRow, TraceSpanRepo } from '../../src/store/index.js';
import { useStore } from './helpers.js';

const open = useStore();

const DAY = 24 * 60 * 60 * 1000;

function spanRow(over: Partial<SpanRow> & Pick<SpanRow, 'spanId'>): SpanRow {
  return {
    traceId: 't1',
    runId: 'run-a',
    name: 'chat m',
    kind: 2,
    startMs: 1_000_000,
    durationMs: 5,
    status: 0,
    attributes: {},
    ...over,
  };
}

describe('TraceSpanRepo', () => {
  it('keeps spans with their attributes and events, and reads a run back in start order', () => {
    const repo = new TraceSpanRepo(open().store.db);
    repo.insert([
      spanRow({
        spanId: 'b',
        parentId: 'a',
        startMs: 1_000_010,
        attributes: { 'gen_ai.usage.input_tokens': 7 },
      }),
      spanRow({
        spanId: 'a',
        name: 'invoke_agent tea',
        kind: 0,
        durationMs: 40,
        status: 2,
        statusMessage: 'boom',
        attributes: { 'gen_ai.response.finish_reasons': ['stop'], 'tea.cancelled': false },
        events: [{ name: 'retry', atMs: 1_000_020, attributes: { attempt: 1 } }],
      }),
      spanRow({ spanId: 'z', runId: 'run-b' }),
    ]);
    const spans = repo.spansOf('run-a');
    expect(spans.map((s) => s.spanId)).toEqual(['a', 'b']);
    expect(spans[0]).toEqual({
      traceId: 't1',
      spanId: 'a',
      runId: 'run-a',
      name: 'invoke_agent tea',
      kind: 0,
      startMs: 1_000_000,
      durationMs: 40,
      status: 2,
      statusMessage: 'boom',
      attributes: { 'gen_ai.response.finish_reasons': ['stop'], 'tea.cancelled': false },
      events: [{ name: 'retry', atMs: 1_000_020, attributes: { attempt: 1 } }],
    });
    expect(spans[1]).toMatchObject({ parentId: 'a', attributes: { 'gen_ai.usage.input_tokens': 7 } });
    expect(spans[1]).not.toHaveProperty('events');
    expect(repo.has('run-b')).toBe(true);
    expect(repo.has('run-c')).toBe(false);
    expect(repo.runIdsStartingWith('run-', 5)).toEqual(['run-a', 'run-b']);
    expect(repo.runOfConversation('nobody')).toBeUndefined();
  });

  it('summarises runs, the most recently active first, with their roots’ tokens and failures', () => {
    const repo = new TraceSpanRepo(open().store.db);
    repo.insert([
      spanRow({
        spanId: 'r1',
        traceId: 't1',
        name: 'invoke_agent tea',
        durationMs: 100,
        attributes: { 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 2 },
      }),
      spanRow({
        spanId: 'c1',
        traceId: 't1',
        parentId: 'r1',
        status: 2,
        attributes: { 'gen_ai.usage.input_tokens': 10 },
      }),
      spanRow({
        spanId: 'r2',
        traceId: 't2',
        name: 'invoke_agent tea',
        startMs: 2_000_000,
        attributes: { 'gen_ai.usage.input_tokens': 5, 'gen_ai.usage.output_tokens': 1 },
      }),
      spanRow({
        spanId: 'w',
        traceId: 't3',
        runId: 'wf-1',
        name: 'invoke_workflow review',
        startMs: 1_500_000,
      }),
    ]);
    expect(repo.runs(10)).toEqual([
      {
        runId: 'run-a',
        root: 'invoke_agent tea',
        traces: 2,
        spans: 3,
        firstMs: 1_000_000,
        lastMs: 2_000_005,
        inputTokens: 15,
        outputTokens: 3,
        errors: 1,
      },
      expect.objectContaining({ runId: 'wf-1', root: 'invoke_workflow review', traces: 1, inputTokens: 0 }),
    ]);
    expect(repo.runs(1)).toHaveLength(1);
    expect(repo.countRuns()).toBe(2);
  });

  it('prunes spans past their age, and the oldest beyond the count kept', () => {
    const repo = new TraceSpanRepo(open().store.db);
    const now = 100 * DAY;
    repo.insert([
      spanRow({ spanId: 'old', startMs: now - 20 * DAY }),
      ...Array.from({ length: 5 }, (_, i) => spanRow({ spanId: `s${i}`, startMs: now - i })),
    ]);
    expect(repo.prune({ beforeMs: now - 14 * DAY, keep: 3 })).toBe(3);
    // The three written last stay.
    expect(
      repo
        .spansOf('run-a')
        .map((s) => s.spanId)
        .sort(),
    ).toEqual(['s2', 's3', 's4']);
    expect(repo.prune({ beforeMs: now - 14 * DAY, keep: 3 })).toBe(0);
    // All past their age: all go.
    expect(repo.prune({ beforeMs: now + 1, keep: 3 })).toBe(3);
    expect(repo.has('run-a')).toBe(false);
  });
});

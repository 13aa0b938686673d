/**
 * Traces of runs through the runtime, kept locally (no OTLP endpoint): the span tree
 * of a prompt with a tool call and a sub-agent, with the GenAI attributes and token
 * usage; failures; a sub-agent's session leading to its parent's run; workflow spans.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { traceWorkflow } from '../../src/agent/trace.js';
import type { TraceNode } from '../../src/runtime/traces.js';
import { reply } from '../support/script.js';
import { wireMessages } from '../support/wire.js';
import { collect, doneOf, isChild, subs, useDelegation } from './helpers.js';

const { model, runtimeIn } = useDelegation();

/** The tree as names: `[name, [children…]]`. */
type Shape = [string, Shape[]] | string;
const shape = (n: TraceNode): Shape =>
  n.children.length === 0 ? n.span.name : [n.span.name, n.children.map(shape)];

/** Every node of a tree, depth first. */
const flat = (n: TraceNode): TraceNode[] => [n, ...n.children.flatMap(flat)];

const toolResults = (body: Record<string, unknown>) =>
  wireMessages(body).filter((m) => m.role === 'tool').length;

describe('traces kept per run', () => {
  it('hold the span tree of a prompt with a tool call and a sub-agent, with gen_ai attributes and tokens', async () => {
    const { rt, work } = await runtimeIn();
    writeFileSync(path.join(work, 'notes.txt'), 'one\ntwo\n');
    model().respond((body) => {
      const done = toolResults(body);
      if (isChild(body))
        return done === 0
          ? reply().toolCall('read_file', { path: 'notes.txt' }).usage(30, 3)
          : reply().text('notes.txt has two lines').usage(40, 4);
      if (done === 0) return reply().toolCall('read_file', { path: 'notes.txt' }).usage(10, 1);
      if (done === 1)
        return reply()
          .toolCall('task', { description: 'count lines', prompt: 'Count the lines of notes.txt.' })
          .usage(20, 2);
      return reply().text('Two lines.').usage(50, 5);
    });
    const session = rt.sessions.create();
    const events = await collect(session.prompt('read notes.txt, then have a sub-agent count its lines'));
    expect(doneOf(events).reason).toBe('completed');
    const child = subs(events)[0]!.agent.sessionId;

    const run = rt.traces.show(session.id);
    expect(run).toMatchObject({ runId: session.id, kind: 'session', spans: 10 });
    expect(run.traces).toHaveLength(1);
    const [tree] = run.traces;
    expect(tree!.roots).toHaveLength(1);
    const root = tree!.roots[0]!;
    expect(shape(root)).toEqual([
      'invoke_agent tea',
      [
        'chat scripted-model',
        'execute_tool read_file',
        'chat scripted-model',
        [
          'execute_tool task',
          [
            [
              'invoke_agent general',
              ['chat scripted-model', 'execute_tool read_file', 'chat scripted-model'],
            ],
          ],
        ],
        'chat scripted-model',
      ],
    ]);

    const all = flat(root);
    // One trace, one run: the sub-agent's spans are in its parent's.
    expect(new Set(all.map((n) => n.span.traceId)).size).toBe(1);
    expect(new Set(all.map((n) => n.span.runId))).toEqual(new Set([session.id]));
    expect(all.every((n) => n.span.status !== 2)).toBe(true);

    expect(root.span.kind).toBe(0); // INTERNAL
    expect(root.span.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'tea',
      'gen_ai.agent.id': session.id,
      'gen_ai.conversation.id': session.id,
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'scripted-model',
      'server.address': '127.0.0.1',
      // The prompt's usage, its sub-agent's included.
      'gen_ai.usage.input_tokens': 10 + 20 + 50 + 30 + 40,
      'gen_ai.usage.output_tokens': 1 + 2 + 5 + 3 + 4,
      'tea.stop_reason': 'completed',
    });

    const chats = root.children.filter((n) => n.span.name.startsWith('chat '));
    expect(chats.map((n) => n.span.kind)).toEqual([2, 2, 2]); // CLIENT
    expect(chats.map((n) => n.span.attributes['gen_ai.usage.input_tokens'])).toEqual([10, 20, 50]);
    expect(chats.map((n) => n.span.attributes['gen_ai.usage.output_tokens'])).toEqual([1, 2, 5]);
    expect(chats.map((n) => n.span.attributes['gen_ai.response.finish_reasons'])).toEqual([
      ['tool_calls'],
      ['tool_calls'],
      ['stop'],
    ]);
    expect(chats[0]!.span.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'scripted-model',
      'gen_ai.response.model': 'scripted-model',
      'gen_ai.conversation.id': session.id,
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(model().openaiBaseUrl).port),
    });

    const read = root.children[1]!;
    const callId = session.history
      .flatMap((m) => m.parts)
      .find((p) => p.type === 'tool-call' && p.name === 'read_file');
    expect(read.span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.call.id': callId?.type === 'tool-call' ? callId.id : '?',
      'gen_ai.tool.type': 'function',
      'tea.tool.status': 'ok',
    });

    const sub = root.children[3]!.children[0]!;
    expect(sub.span.parentId).toBe(root.children[3]!.span.spanId);
    expect(sub.span.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'general',
      'gen_ai.conversation.id': child,
      'gen_ai.usage.input_tokens': 70,
      'gen_ai.usage.output_tokens': 7,
    });
    // Each span lies within its parent's time.
    for (const n of all)
      for (const c of n.children) {
        expect(c.span.startMs).toBeGreaterThanOrEqual(n.span.startMs);
        expect(c.span.startMs + c.span.durationMs).toBeLessThanOrEqual(
          n.span.startMs + n.span.durationMs + 0.001,
        );
      }

    // The sub-agent's session leads to its parent's run.
    const viaChild = rt.traces.show(child.slice(0, 8));
    expect(viaChild.runId).toBe(session.id);
    expect(viaChild.note).toContain('sub-agent');
    expect(rt.traces.list().runs).toEqual([
      expect.objectContaining({
        runId: session.id,
        root: 'invoke_agent tea',
        traces: 1,
        spans: 10,
        errors: 0,
      }),
    ]);
  });

  it("go to an embedding application's tracer instead (the OpenTelemetry SDK), as the same tree", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const { rt } = await runtimeIn('', { tracer: provider.getTracer('host-app') });
    model().respond((body) => {
      if (isChild(body)) return reply().text('child done').usage(3, 1);
      return toolResults(body) === 0
        ? reply().toolCall('task', { description: 'sub', prompt: 'Do the sub-task.' }).usage(1, 1)
        : reply().text('parent done').usage(2, 1);
    });
    const session = rt.sessions.create();
    expect(doneOf(await collect(session.prompt('delegate it'))).reason).toBe('completed');
    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [root] = byName('invoke_agent tea');
    const [task] = byName('execute_tool task');
    const [child] = byName('invoke_agent general');
    expect(spans.map((s) => s.name).sort()).toEqual([
      'chat scripted-model',
      'chat scripted-model',
      'chat scripted-model',
      'execute_tool task',
      'invoke_agent general',
      'invoke_agent tea',
    ]);
    expect(root!.parentSpanContext).toBeUndefined();
    expect(task!.parentSpanContext?.spanId).toBe(root!.spanContext().spanId);
    expect(child!.parentSpanContext?.spanId).toBe(task!.spanContext().spanId);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(child!.attributes['gen_ai.usage.input_tokens']).toBe(3);
    // Nothing was kept locally.
    expect(rt.traces.list().runs).toEqual([]);
    await provider.shutdown();
  });

  it('marks failed model calls and tool calls, and keeps each prompt as a trace of the same run', async () => {
    const { rt } = await runtimeIn();
    model().script(
      reply().toolCall('read_file', { path: 'missing.txt' }).usage(5, 1),
      reply().text('It is missing.').usage(6, 1),
      reply().error(500, { message: 'the model broke' }),
    );
    const session = rt.sessions.create();
    await collect(session.prompt('read missing.txt'));
    const failed = doneOf(await collect(session.prompt('again')));
    expect(failed.reason).toBe('error');

    const run = rt.traces.show(session.id.slice(0, 6));
    expect(run.traces).toHaveLength(2);
    const [first, second] = run.traces.map((t) => t.roots[0]!);
    const read = first!.children.find((n) => n.span.name === 'execute_tool read_file')!;
    expect(read.span.status).toBe(2);
    expect(read.span.attributes).toMatchObject({ 'error.type': 'tool_error', 'tea.tool.status': 'error' });
    expect(read.span.statusMessage).toContain('[ERROR]');
    expect(first!.span.status).toBe(0);

    const chat = second!.children[0]!;
    expect(chat.span.status).toBe(2);
    expect(chat.span.attributes['error.type']).toBe('500');
    expect(second!.span.status).toBe(2);
    expect(second!.span.attributes).toMatchObject({ 'error.type': '500', 'tea.stop_reason': 'error' });
  });

  it('says clearly when a run has no kept trace', async () => {
    const { rt } = await runtimeIn();
    const idle = rt.sessions.create();
    expect(() => rt.traces.show('zzzz-nothing')).toThrow(/no kept trace for 'zzzz-nothing'.*tea trace list/);
    expect(() => rt.traces.show(idle.id)).toThrow(`no trace is kept for session ${idle.id}`);
    expect(() => rt.traces.show('  ')).toThrow(/no run given/);
  });

  it('files the spans of a workflow run under its run id, its agents nested under invoke_workflow', async () => {
    const { rt } = await runtimeIn();
    model().script(reply().text('reviewed').usage(7, 2));
    const session = rt.sessions.create();
    const out = await traceWorkflow(
      { name: 'review', runId: 'wf-run-1', tracer: rt.agent.services.tracer },
      async (parent) => doneOf(await collect(session.prompt('review it', { traceParent: parent }))).text,
    );
    expect(out).toBe('reviewed');
    const run = rt.traces.show('wf-run');
    expect(run).toMatchObject({ runId: 'wf-run-1', kind: 'workflow', spans: 3 });
    const root = run.traces[0]!.roots[0]!;
    expect(shape(root)).toEqual(['invoke_workflow review', [['invoke_agent tea', ['chat scripted-model']]]]);
    expect(root.span.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.workflow.name': 'review',
    });
    // The session's own id leads to the workflow run its spans are in.
    expect(rt.traces.show(session.id)).toMatchObject({
      runId: 'wf-run-1',
      note: expect.stringContaining('ran inside run wf-run-1'),
    });

    await expect(
      traceWorkflow({ name: 'broken', runId: 'wf-run-2', tracer: rt.agent.services.tracer }, async () => {
        throw new TypeError('bad state');
      }),
    ).rejects.toThrow('bad state');
    const broken = rt.traces.show('wf-run-2').traces[0]!.roots[0]!.span;
    expect(broken).toMatchObject({ status: 2, statusMessage: 'bad state' });
    expect(broken.attributes['error.type']).toBe('TypeError');
  });

  it('traces a real workflow run: invoke_workflow, its agent nodes (as roles) and their model calls', async () => {
    const { rt, work } = await runtimeIn();
    const flows = path.join(work, '.tea', 'workflows');
    mkdirSync(flows, { recursive: true });
    writeFileSync(
      path.join(flows, 'twostep.yaml'),
      [
        'name: twostep',
        'state: { seen: string, verdict: string }',
        'nodes:',
        '  look: { kind: agent, role: analyst, prompt: "Look.", output: seen, next: judge }',
        '  judge: { kind: agent, role: reviewer, prompt: "Judge: {{state.seen}}", output: verdict, next: done }',
        '  done: { kind: end }',
      ].join('\n'),
    );
    model().script(reply().text('looked').usage(5, 1), reply().text('fine').usage(6, 1));
    const wf = await rt.workflows();
    const handle = await wf.start('twostep', {});
    expect((await handle.done).status).toBe('completed');
    const run = rt.traces.show(handle.runId);
    expect(run).toMatchObject({ runId: handle.runId, kind: 'workflow' });
    const root = run.traces[0]!.roots[0]!;
    expect(shape(root)).toEqual([
      'invoke_workflow twostep',
      [
        ['invoke_agent analyst', ['chat scripted-model']],
        ['invoke_agent reviewer', ['chat scripted-model']],
      ],
    ]);
    const chats = flat(root).filter((n) => n.span.name.startsWith('chat'));
    expect(chats.map((n) => n.span.attributes['gen_ai.usage.input_tokens'])).toEqual([5, 6]);
  });
});

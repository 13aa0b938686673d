/**
 * The loop runs without SQLite: an in-memory recorder takes every message, tool-call
 * transition and model call's usage, and the model is the scripted HTTP server.
 * Nothing here opens a Store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { AgentEvent } from '../../src/agent/events.js';
import type { SessionData, SessionHost } from '../../src/agent/host.js';
import { Interactions } from '../../src/agent/interactions.js';
import { runTurn } from '../../src/agent/loop.js';
import { type RecordEvent, type TurnRecorder, UsageMeter } from '../../src/agent/record.js';
import { agentSettings } from '../../src/agent/settings.js';
import { abortFlag } from '../../src/agent/stop.js';
import { AgentTrace, tracerOr } from '../../src/agent/trace.js';
import type { Turn, TurnContext } from '../../src/agent/turn.js';
import { buildContext } from '../../src/context/build.js';
import { estimateMessage } from '../../src/context/tokens.js';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import type { Message, Provider } from '../../src/llm/types.js';
import { PermissionPolicy } from '../../src/tools/permissions.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/types.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';

/** Keeps what the loop records, and the order it came in (with each model request). */
class MemoryRecorder implements TurnRecorder {
  readonly log: string[] = [];
  readonly events: RecordEvent[] = [];
  drafts = 0;

  record(e: RecordEvent): void {
    if (e.type === 'draft') {
      this.drafts++;
      return;
    }
    this.events.push(e);
    if (e.type === 'message') this.log.push(`user`);
    if (e.type === 'step') {
      // The step's calls come with its message (one write): received, none run yet.
      const calls = e.calls.map((c) => `${c.name}:${c.state}`).join(',');
      this.log.push(`assistant:${e.status}${calls ? ` calls:${calls}` : ''}`);
    }
    if (e.type === 'tool_update') this.log.push(`tool:${e.record.name}:${e.record.state}`);
  }
}

/** Every small state value in a Map; the transcript is not needed by these tools. */
function memoryData(): SessionData {
  const state = new Map<string, unknown>();
  return {
    state: {
      get: <T>(_s: string, key: string) => state.get(key) as T | undefined,
      set: (_s: string, key: string, value: unknown) => void state.set(key, value),
      delete: (_s: string, key: string) => void state.delete(key),
    },
    messages: { list: () => [] },
  };
}

/** The context as the session builds it, minus summaries: the system prompt and the transcript. */
const context: TurnContext = {
  failedCompactions: 0,
  build: (history: readonly Message[], info) =>
    buildContext(
      { system: 'You are a test.', instructions: [], summaries: {}, pairs: [], recent: [...history] },
      { contextWindow: info.contextWindow, maxOutput: info.maxOutputTokens, trimAt: 0.9 },
      estimateMessage,
    ),
  takeLanded: () => [],
  observe: () => undefined,
  finishTurn: () => undefined,
};

const echo = defineTool({
  name: 'echo',
  description: 'Says the text back.',
  parameters: z.object({ text: z.string() }),
  category: 'test',
  readOnly: true,
  concurrencySafe: true,
  approval: 'none',
  subject: (a) => a.text,
  execute: async (a) => `echo: ${a.text}`,
});
const write = defineTool({
  name: 'write_note',
  description: 'Writes a note (needs approval).',
  parameters: z.object({ text: z.string() }),
  category: 'test',
  readOnly: false,
  concurrencySafe: false,
  approval: 'write',
  execute: async () => 'written',
});

let server: ModelServer;
let dir: string;
beforeEach(async () => {
  server = await startModelServer();
  dir = mkdtempSync(path.join(os.tmpdir(), 'tea-loop-mem-'));
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function turnOf(recorder: TurnRecorder, provider: Provider, usage: UsageMeter): Turn {
  const signal = new AbortController().signal;
  const tools = new ToolRegistry();
  tools.registerAll([echo, write]);
  const host: SessionHost = {
    store: memoryData(),
    sessionId: 's1',
    tools,
    interactions: new Interactions('deny'),
    loaded: new Set(),
  };
  return {
    services: { provider, tools },
    settings: agentSettings({ maxIterations: 5, maxParallelTools: 2, toolLoading: 'all' }),
    state: {
      sessionId: 's1',
      cwd: dir,
      depth: 0,
      systemPrompt: 'You are a test.',
      roots: [],
      history: [],
      steering: [],
      callIds: new Set(),
      policy: new PermissionPolicy('ask', []),
      host,
      signal,
      stop: abortFlag(signal),
      context,
      recorder,
      usage,
      trace: new AgentTrace(tracerOr(undefined), undefined, {
        sessionId: 's1',
        agentName: 'tea',
        model: provider.info,
      }),
    },
  };
}

describe('the loop with an in-memory recorder (no SQLite)', () => {
  it('records every message, tool transition and model call, each step before the next request', async () => {
    server.script(
      reply()
        .text('Checking.')
        .toolCall('echo', { text: 'hi' })
        .toolCall('write_note', { text: 'x' })
        .usage(10, 4),
      reply().text('Done.').usage(20, 2),
    );
    const recorder = new MemoryRecorder();
    const base = new OpenAICompatibleProvider(
      {
        profile: 'main_model',
        provider: 'openai',
        model: 'scripted-model',
        baseUrl: server.openaiBaseUrl,
        contextWindow: 32_000,
        maxOutputTokens: 4096,
        inputPrice: 1,
        outputPrice: 2,
      },
      { apiKey: 'sk-test' },
    );
    // Each model request goes into the same log, to see what was recorded before it.
    const provider: Provider = {
      info: base.info,
      stream: (req, signal) => {
        recorder.log.push('request');
        return base.stream(req, signal);
      },
    };
    const usage = new UsageMeter();
    const t = turnOf(recorder, provider, usage);
    const events: AgentEvent[] = [];
    const turn = runTurn(t, { text: 'go' }, 't1');
    let next = await turn.next();
    while (!next.done) {
      events.push(next.value);
      next = await turn.next();
    }

    expect(next.value).toMatchObject({ reason: 'completed', text: 'Done.', iterations: 2 });
    expect(recorder.log).toEqual([
      'user',
      'request',
      'assistant:complete calls:echo:pending,write_note:pending',
      'tool:echo:running',
      'tool:echo:completed',
      'tool:write_note:denied',
      'request',
      'assistant:complete',
    ]);
    expect(recorder.drafts).toBeGreaterThan(0);
    // The same records reach the faces.
    const states = events.flatMap((e) =>
      e.type === 'tool_update' ? [`${e.record.name}:${e.record.state}`] : [],
    );
    expect(states).toEqual([
      'echo:pending',
      'write_note:pending',
      ...recorder.log.filter((l) => l.startsWith('tool:')).map((l) => l.slice(5)),
    ]);
    // Usage: one entry per model call, totalled once.
    const steps = recorder.events.filter((e) => e.type === 'step');
    expect(steps.map((s) => (s.type === 'step' ? s.usage.map((u) => u.usage) : []))).toEqual([
      [{ inputTokens: 10, outputTokens: 4 }],
      [{ inputTokens: 20, outputTokens: 2 }],
    ]);
    expect(usage.total).toEqual({ inputTokens: 30, outputTokens: 6 });
    // The model got both results, the refusal with its hint.
    expect(t.state.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const results = t.state.history[2]!.parts;
    expect(results).toMatchObject([
      { type: 'tool-result', name: 'echo', output: 'echo: hi', isError: false },
      {
        type: 'tool-result',
        name: 'write_note',
        isError: true,
        output: expect.stringMatching(/^\[DENIED\]/),
      },
    ]);
  });
});

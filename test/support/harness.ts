import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { Agent, type AgentOptions } from '../../src/agent/index.js';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import type { ModelInfo, Provider } from '../../src/llm/types.js';
import { Store } from '../../src/store/index.js';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import type { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/types.js';
import { type ModelServer, startModelServer } from './model-server.js';

export function modelInfo(baseUrl: string, over: Partial<ModelInfo> = {}): ModelInfo {
  return {
    profile: 'main_model',
    provider: 'openai',
    model: 'scripted-model',
    baseUrl,
    contextWindow: 32_000,
    maxOutputTokens: 4096,
    inputPrice: 1,
    outputPrice: 2,
    ...over,
  };
}

/** What the timing test tools saw: one entry per execution, with start and end times. */
export interface ToolLogEntry {
  name: string;
  label: string;
  start: number;
  end: number;
  aborted: boolean;
}

/**
 * Test tools that sleep for `ms`, honour cancellation and log when they ran (`sleep_exec`
 * needs approval). `onListening` is told once a call sleeps and listens for cancellation.
 */
export function sleepTools(log: ToolLogEntry[], onListening: (entry: ToolLogEntry) => void = () => {}) {
  const params = z.object({ label: z.string(), ms: z.number().int().min(0).default(50) });
  const make = (name: string, concurrencySafe: boolean, approval: 'none' | 'exec' = 'none') =>
    defineTool({
      name,
      description: `Sleeps for ms milliseconds (${concurrencySafe ? 'parallel-safe' : 'serial'}).`,
      parameters: params,
      category: 'test',
      readOnly: concurrencySafe,
      concurrencySafe,
      approval,
      subject: (args) => `run ${args.label}`,
      async execute(args, ctx) {
        const entry: ToolLogEntry = { name, label: args.label, start: Date.now(), end: 0, aborted: false };
        log.push(entry);
        const slept = new Promise<void>((resolve) => {
          const t = setTimeout(resolve, args.ms);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(t);
            entry.aborted = true;
            resolve();
          });
        });
        onListening(entry);
        await slept;
        entry.end = Date.now();
        return `${name} ${args.label} done`;
      },
    });
  return [make('sleep_read', true), make('sleep_write', false), make('sleep_exec', false, 'exec')];
}

export interface Harness {
  server: ModelServer;
  store: Store;
  tools: ToolRegistry;
  workspace: string;
  dbPath: string;
  log: ToolLogEntry[];
  provider: Provider;
  /** Resolves once the sleep tool call labelled `label` runs and listens for cancellation. */
  toolStarted(label: string): Promise<ToolLogEntry>;
  agent(opts?: Partial<AgentOptions>): Agent;
  close(): Promise<void>;
}

/** A real store in a temp dir, the built-in tools plus sleep tools, and the scripted server. */
export async function createHarness(): Promise<Harness> {
  const server = await startModelServer();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-harness-'));
  const workspace = path.join(dir, 'work');
  mkdirSync(workspace);
  const dbPath = path.join(dir, 'tea.db');
  const store = Store.open(dbPath);
  const log: ToolLogEntry[] = [];
  const listening: ToolLogEntry[] = [];
  const waiters: Array<{ label: string; resolve: (entry: ToolLogEntry) => void }> = [];
  const tools = await createToolRegistry();
  tools.registerAll(
    sleepTools(log, (entry) => {
      listening.push(entry);
      for (const w of waiters.filter((w) => w.label === entry.label)) w.resolve(entry);
    }),
  );
  const provider = new OpenAICompatibleProvider(modelInfo(server.openaiBaseUrl), { apiKey: 'sk-test' });
  return {
    server,
    store,
    tools,
    workspace,
    dbPath,
    log,
    provider,
    toolStarted: (label) =>
      new Promise((resolve) => {
        const started = listening.find((e) => e.label === label);
        if (started) resolve(started);
        else waiters.push({ label, resolve });
      }),
    // Loop tests see every schema and run tools without approval unless a test says otherwise.
    agent: ({ settings, ...services } = {}) =>
      new Agent({
        provider,
        tools,
        store,
        cwd: workspace,
        ...services,
        settings: { toolLoading: 'all', permissionMode: 'yolo', ...settings },
      }),
    async close() {
      store.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

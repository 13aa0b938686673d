/** A real Tea HTTP server on 127.0.0.1:0 over a temp home, store and the scripted model server. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import type { TeaConfig } from '../../src/config/types.js';
import type { MemoryService } from '../../src/memory/service.js';
import type { LazyMemory } from '../../src/runtime/lazy-memory.js';
import { createRuntime, type Runtime, type WorkflowsSetup } from '../../src/runtime/runtime.js';
import { runtimeDeps } from '../../src/server/agents.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import type { ServerDeps } from '../../src/server/types.js';
import { Store } from '../../src/store/index.js';
import type { PermissionMode } from '../../src/tools/permissions.js';
import { sleepTools, type ToolLogEntry } from '../support/harness.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

export const SECRET_KEY = 'sk-test-SECRETSECRET-0123456789abcdef';

export interface TestServer {
  url: string;
  model: ModelServer;
  store: Store;
  memory: MemoryService;
  config: TeaConfig;
  home: string;
  work: string;
  log: ToolLogEntry[];
  server: RunningServer;
  rt: Runtime;
  /** fetch relative to the server with JSON helpers. */
  req(method: string, p: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  json<T = Record<string, unknown>>(
    method: string,
    p: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  mode?: PermissionMode;
  /** Extra YAML appended to the config file. */
  yaml?: string;
  deps?: Partial<ServerDeps>;
  model?: ModelServer;
  maxIterations?: number;
  /** Name new sessions on the cheap model (here the scripted main model) after their first turn. */
  titles?: boolean;
  /** More `llm:` settings, in YAML flow style (e.g. `breaker: { failure_threshold: 1 }`). */
  llm?: string;
  /** Leave the runtime's memory service unloaded until a request needs it (then `memory` throws). */
  lazyMemory?: boolean;
  /** How the workflows service is built (on the first workflow request). */
  workflows?: WorkflowsSetup;
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const model = opts.model ?? (await startModelServer());
  const root = mkdtempSync(path.join(os.tmpdir(), 'tea-server-'));
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(path.join(work, '.git'), { recursive: true });
  writeFileSync(
    path.join(home, 'config.yaml'),
    [
      `main_model: { base_url: ${model.openaiBaseUrl}, api_key: ${SECRET_KEY}, model: scripted-model }`,
      `profiles:`,
      `  other: { base_url: ${model.openaiBaseUrl}, api_key: ${SECRET_KEY}, model: other-model }`,
      `llm: { timeout_s: 5, max_retries: 0${opts.llm ? `, ${opts.llm}` : ''} }`,
      `agent: { auto_title: ${opts.titles ?? false}, max_iterations: ${opts.maxIterations ?? 10} }`,
      'memory: { extract: false, tune: false, judge: false }',
      'tools: { loading: all }',
      opts.yaml ?? '',
    ].join('\n'),
  );
  const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
  const log: ToolLogEntry[] = [];
  const mode = opts.mode ?? 'ask';
  const rt = await createRuntime({
    config,
    cwd: work,
    tools: sleepTools(log),
    permissionMode: mode,
    titles: opts.titles ?? false,
  });
  // The tests' own look at the database, beside the runtime's connection.
  const store = Store.open(path.join(home, 'tea.db'));
  // The runtime's own service, loaded (the interface hides exportAll, which the tests read).
  const lazy = rt.memory as LazyMemory;
  const memory = opts.lazyMemory ? undefined : ((await lazy.open()) as MemoryService);
  const server = await startServer(
    {
      ...runtimeDeps(rt),
      workflows: () => rt.workflows(opts.workflows),
      version: '0.0.0-test',
      pingIntervalMs: 200,
      ...opts.deps,
    },
    { host: '127.0.0.1', port: 0 },
  );
  const req = (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${p}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  return {
    url: server.url,
    model,
    store,
    get memory(): MemoryService {
      if (!memory) throw new Error('lazyMemory: the test server has no loaded memory service to hand out');
      return memory;
    },
    config,
    home,
    work,
    log,
    server,
    rt,
    req,
    async json<T>(method: string, p: string, body?: unknown, headers?: Record<string, string>) {
      const res = await req(method, p, body, headers);
      return { status: res.status, body: (await res.json()) as T };
    },
    async close() {
      await server.close();
      store.close();
      await rt.close();
      if (!opts.model) await model.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Reads server-sent events from `url` until `until` says stop (or the stream ends);
 * returns the events read and aborts the connection.
 */
export async function readSse(
  url: string,
  until: (e: SseEvent, all: SseEvent[]) => boolean,
  headers: Record<string, string> = {},
): Promise<SseEvent[]> {
  const ac = new AbortController();
  const res = await fetch(url, { headers, signal: ac.signal });
  if (!res.ok || !res.body) throw new Error(`SSE ${url}: HTTP ${res.status} ${await res.text()}`);
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let at = buffer.indexOf('\n\n');
      while (at >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        at = buffer.indexOf('\n\n');
        const e: SseEvent = { data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) e.id = line.slice(3).trim();
          else if (line.startsWith('event:')) e.event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length === 0 && e.event === undefined) continue; // a comment (ping)
        e.data = data.join('\n');
        events.push(e);
        if (until(e, events)) return events;
      }
    }
    return events;
  } finally {
    ac.abort();
  }
}

/**
 * Experience tests through the runtime: a temp home and workspace, the main model and
 * a cheap model (`cheap-model`) on the scripted server, and a router that answers the
 * main model from a queue and the cheap model by the job its system prompt names.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentEvent } from '../../../src/agent/events.js';
import { loadConfig } from '../../../src/config/load.js';
import { createRuntime, type Runtime } from '../../../src/runtime/runtime.js';
import type { ModelServer } from '../../support/model-server.js';
import { type ReplyBuilder, reply } from '../../support/script.js';
import { type WireMessage, wireMessages, wireText } from '../../support/wire.js';

export const CHEAP = 'cheap-model';

export interface Home {
  root: string;
  home: string;
  work: string;
}

export function makeHome(root: string): Home {
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  return { root, home, work };
}

/** Config for `server`: the cheap model is a profile on the same server; no other background jobs. */
export function configYaml(server: ModelServer, extra = ''): string {
  return [
    `main_model: { base_url: ${server.openaiBaseUrl}, api_key: sk-test, model: scripted-model }`,
    `cheap_model: { base_url: ${server.openaiBaseUrl}, api_key: sk-test, model: ${CHEAP} }`,
    'llm: { timeout_s: 5, max_retries: 0 }',
    'agent: { auto_title: false }',
    'memory: { extract: false, tune: false, judge: false }',
    extra,
  ].join('\n');
}

export async function runtimeFor(server: ModelServer, h: Home, extra = ''): Promise<Runtime> {
  writeFileSync(path.join(h.home, 'config.yaml'), configYaml(server, extra));
  const config = await loadConfig({ home: h.home, cwd: h.work, env: { HOME: h.root }, detectOllama: false });
  return createRuntime({ config, cwd: h.work, userHome: h.root, permissionMode: 'yolo', sandbox: 'off' });
}

export interface Routes {
  /** Replies of the main model, in order. */
  main: ReplyBuilder[];
  lesson?: string;
  draft?: string;
}

/** The system prompt of a request. */
export const systemOf = (body: Record<string, unknown>): string => {
  const first: WireMessage | undefined = wireMessages(body)[0];
  return first?.role === 'system' ? wireText(first) : '';
};
/** Everything a request says (system and user). */
export const allText = (body: Record<string, unknown>): string => wireMessages(body).map(wireText).join('\n');

export const isCheap = (body: Record<string, unknown>): boolean => body.model === CHEAP;
export const isLessonJob = (body: Record<string, unknown>): boolean =>
  isCheap(body) && systemOf(body).includes('write ONE lesson');
export const isDraftJob = (body: Record<string, unknown>): boolean =>
  isCheap(body) && systemOf(body).includes('reusable skill');

/** Answers the main model from `routes.main` and the cheap model's jobs from their texts. */
export function route(server: ModelServer, routes: Routes): void {
  const main = [...routes.main];
  server.respond((body) => {
    if (isLessonJob(body)) return reply().text(routes.lesson ?? '{"lesson": null}');
    if (isDraftJob(body)) return reply().text(routes.draft ?? '{"skip": "not scripted"}');
    if (isCheap(body)) return reply().text('[]');
    return main.shift() ?? reply().error(500, { message: 'no main reply scripted' });
  });
}

export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** A node:test file that fails (or passes): a real test run, the same on every machine. */
export function testFile(work: string, passes: boolean): void {
  writeFileSync(
    path.join(work, 'sum.test.mjs'),
    `import test from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => assert.equal(1 + 1, ${passes ? 2 : 3}));\n`,
  );
}

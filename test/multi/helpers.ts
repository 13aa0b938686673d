/** Shared set-up of the delegation tests: runtimes over temp homes and the scripted model server. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { loadConfig } from '../../src/config/load.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { useTempDirs } from '../store/helpers.js';
import { useModelServer } from '../support/use-model-server.js';
import { type WireMessage, wireMessages, wireText } from '../support/wire.js';

/** Hooks for a test file: its model server, and runtimes (closed after each test) over temp homes. */
export function useDelegation() {
  const model = useModelServer();
  const tempDir = useTempDirs();
  const open: Runtime[] = [];
  afterEach(async () => {
    for (const rt of open.splice(0)) await rt.close();
    model().respond(undefined);
    model().reset();
  });

  /** A runtime over a new home (its config.yaml: the scripted model, then `yaml`) and workspace. */
  async function runtimeIn(
    yaml = '',
    opts: Parameters<typeof createRuntime>[0] & {
      before?: (dirs: { home: string; work: string }) => void;
    } = {},
  ) {
    const root = tempDir();
    const home = path.join(root, 'home');
    const work = path.join(root, 'work');
    mkdirSync(home);
    mkdirSync(work);
    writeFileSync(
      path.join(home, 'config.yaml'),
      [
        `main_model: { base_url: ${model().openaiBaseUrl}, api_key: sk-test, model: scripted-model }`,
        'llm: { timeout_s: 30, max_retries: 0 }',
        'agent: { auto_title: false }',
        'memory: { extract: false, tune: false, judge: false }',
        yaml,
      ].join('\n'),
    );
    const { before, ...rest } = opts;
    before?.({ home, work });
    const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
    const rt = await createRuntime({ config, cwd: work, ...rest });
    open.push(rt);
    return { rt, home, work };
  }
  return { model, runtimeIn };
}

const systemText = (body: Record<string, unknown>): string =>
  wireText(wireMessages(body).find((m) => m.role === 'system') ?? ({ role: 'system' } as WireMessage));

/** A request of a sub-agent (its system prompt says so). */
export const isChild = (body: Record<string, unknown>): boolean =>
  systemText(body).includes('You are a sub-agent');
export const systemOf = systemText;
export const firstUser = (body: Record<string, unknown>): string =>
  wireText(wireMessages(body).find((m) => m.role === 'user') ?? ({ role: 'user' } as WireMessage));
export const toolNames = (body: Record<string, unknown>): string[] =>
  ((body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name);
/** The session's first model call (no tool results yet). */
export const isFirstCall = (body: Record<string, unknown>): boolean =>
  !wireMessages(body).some((m) => m.role === 'tool');

export type Sub = Extract<AgentEvent, { type: 'subagent' }>;
export const subs = (events: AgentEvent[]): Sub[] => events.filter((e): e is Sub => e.type === 'subagent');
export const doneOf = (events: AgentEvent[]) =>
  events.find((e) => e.type === 'done') as Extract<AgentEvent, { type: 'done' }>;

/** The text of the last finished call of tool `name`. */
export function toolOutput(events: AgentEvent[], name: string): string {
  const ends = events.filter(
    (e): e is Extract<AgentEvent, { type: 'tool_update' }> =>
      e.type === 'tool_update' && e.record.name === name && e.record.finishedAt !== undefined,
  );
  const last = ends.at(-1)?.record;
  return (last?.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
}

export const task = (n: number, extra: Record<string, unknown> = {}) => ({
  description: `check part ${n}`,
  prompt: `Check part ${n} and report.`,
  ...extra,
});

export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

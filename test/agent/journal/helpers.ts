/** A runtime over a temp home and workspace with the scripted model server, for the journal's tests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import { loadConfig } from '../../../src/config/load.js';
import { createRuntime, type Runtime } from '../../../src/runtime/runtime.js';
import { useTempDirs } from '../../store/helpers.js';
import type { ModelServer } from '../../support/model-server.js';
import { reply } from '../../support/script.js';

export interface Rig {
  rt: Runtime;
  home: string;
  work: string;
}

/** Makes rigs for one test file; all are closed after each test. */
export function useRigs(model: () => ModelServer) {
  const tempDir = useTempDirs();
  const open: Runtime[] = [];
  afterEach(async () => {
    for (const rt of open.splice(0)) await rt.close();
    model().reset();
  });
  return async (
    opts: Parameters<typeof createRuntime>[0] = {},
    at?: { home?: string; work?: string },
    yaml = '',
  ): Promise<Rig> => {
    const root = tempDir();
    const home = at?.home ?? path.join(root, 'home');
    const work = at?.work ?? path.join(root, 'work');
    mkdirSync(home, { recursive: true });
    mkdirSync(work, { recursive: true });
    writeFileSync(
      path.join(home, 'config.yaml'),
      [
        `main_model: { base_url: ${model().openaiBaseUrl}, api_key: sk-test, model: scripted-model }`,
        'llm: { timeout_s: 5, max_retries: 0 }',
        'agent: { auto_title: false }',
        'memory: { extract: false, tune: false, judge: false }',
        yaml,
      ].join('\n'),
    );
    const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
    const rt = await createRuntime({ config, cwd: work, permissionMode: 'yolo', ...opts });
    open.push(rt);
    return { rt, home, work };
  };
}

export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** Scripts one turn that runs `command` in bash, then answers `done`. */
export function scriptBash(model: ModelServer, command: string, id = 'call_1'): void {
  model.script(reply().toolCall('bash', { command }, { id }), reply().text('done'));
}

/** The journal event of a turn's events. */
export function journalEvent(events: AgentEvent[]): Extract<AgentEvent, { type: 'journal' }> | undefined {
  return events.find((e): e is Extract<AgentEvent, { type: 'journal' }> => e.type === 'journal');
}

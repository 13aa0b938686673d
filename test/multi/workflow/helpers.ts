/** A real runtime (SQLite in a temp home, real tools) on the scripted model server, for workflow tests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { createRuntime, type Runtime, type WorkflowsSetup } from '../../../src/runtime/runtime.js';
import type { WorkflowsService } from '../../../src/runtime/workflows.js';
import { useTempDirs } from '../../store/helpers.js';
import type { ModelServer, RecordedRequest } from '../../support/model-server.js';
import { type ReplyBuilder, reply } from '../../support/script.js';
import { useModelServer } from '../../support/use-model-server.js';
import { wireMessages, wireText } from '../../support/wire.js';

export const FLOWS = path.resolve(import.meta.dirname, 'flows');

/** The text of the last user message of a recorded chat request. */
export function lastUserText(body: Record<string, unknown>): string {
  const users = wireMessages(body).filter((m) => m.role === 'user');
  return users.length > 0 ? wireText(users.at(-1)!) : '';
}

/** The `[tag]` a test prompt starts with (`plan`, `part_a`, `review 1`). */
export function tagOf(body: Record<string, unknown>): string {
  return /^\[([^\]]+)\]/.exec(lastUserText(body))?.[1] ?? '?';
}

/** How many model requests each tag got. */
export function tagCounts(requests: readonly RecordedRequest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of requests) {
    const tag = tagOf(r.body);
    out[tag] = (out[tag] ?? 0) + 1;
  }
  return out;
}

/** What the scripted model answers each node of flows/pipeline.yaml: the reviewer approves on its third look. */
export function pipelineReply(body: Record<string, unknown>): ReplyBuilder {
  const tag = tagOf(body);
  const review = /^review (\d+)$/.exec(tag);
  if (review)
    return reply()
      .text(Number(review[1]) < 2 ? 'revise' : 'approve')
      .usage(10, 1);
  if (tag === 'plan') return reply().text('PLAN: three parts').usage(10, 3);
  if (tag === 'summary') return reply().text('all parts done').usage(10, 3);
  if (tag.startsWith('part_')) return reply().text(`done ${tag}`).usage(10, 2);
  return reply().text(`untagged: ${tag}`);
}

export interface WorkflowEnv {
  server: () => ModelServer;
  home: () => string;
  work: () => string;
  rt: () => Runtime;
  service: (setup?: WorkflowsSetup) => Promise<WorkflowsService>;
  /** Writes `.tea/workflows/<name>` in the workspace. */
  writeFlow: (name: string, text: string) => string;
}

/** Per test: a temp Tea home and workspace, and a runtime on the file's scripted model server. */
export function useWorkflowRuntime(opts: { permissionMode?: string } = {}): WorkflowEnv {
  const server = useModelServer();
  const tempDir = useTempDirs();
  let rt: Runtime | undefined;
  let home = '';
  let work = '';
  beforeEach(async () => {
    server().reset();
    const root = tempDir();
    home = path.join(root, 'home');
    work = path.join(root, 'work');
    mkdirSync(home);
    mkdirSync(work);
    writeFileSync(
      path.join(home, 'config.yaml'),
      `main_model: { base_url: ${server().openaiBaseUrl}, api_key: sk-test, model: scripted-model }\n` +
        'memory: { extract: false }\n',
    );
    const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
    rt = await createRuntime({
      config,
      cwd: work,
      titles: false,
      permissionMode: opts.permissionMode ?? 'auto-edit',
    });
  });
  afterEach(async () => {
    await rt?.close();
    rt = undefined;
  });
  return {
    server,
    home: () => home,
    work: () => work,
    rt: () => rt!,
    service: (setup) => rt!.workflows(setup),
    writeFlow: (name, text) => {
      const dir = path.join(work, '.tea', 'workflows');
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    },
  };
}

/**
 * One built `tea serve` per test file on a loopback port, its model the scripted
 * model server (no titles, no memory jobs: every model request is the agent's).
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type CliEnv, cliEnv, listening, NO_MEMORY_JOBS, spawnTea } from '../support/cli.js';
import { type ModelServer, type RecordedRequest, startModelServer } from '../support/model-server.js';

export interface TeaServe {
  readonly model: ModelServer;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The agent's model requests so far (the chat-completions bodies the scripted model got). */
  readonly requests: RecordedRequest['body'][];
}

/** `anthropic`: the model is reached over the Anthropic messages wire instead. */
export function useTeaServe(opts: { wire?: 'openai' | 'anthropic' } = {}): TeaServe {
  let model: ModelServer | undefined;
  let ctx: CliEnv | undefined;
  let child: ChildProcess | undefined;
  let url = '';
  beforeAll(async () => {
    model = await startModelServer();
    ctx = cliEnv(
      opts.wire === 'anthropic'
        ? {
            ANTHROPIC_API_KEY: 'sk-ant-test',
            ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
            TEA_MODEL: 'claude-scripted',
          }
        : { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.openaiBaseUrl, TEA_MODEL: 'scripted-model' },
    );
    writeFileSync(path.join(ctx.home, 'config.yaml'), `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n`);
    child = spawnTea(['serve', '--port', '0', '--cwd', ctx.work], { env: ctx.env });
    url = await listening(child);
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const gone = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
    await model?.close();
    ctx?.cleanup();
  });
  beforeEach(() => model?.reset());
  return {
    get model() {
      return model!;
    },
    get url() {
      return url;
    },
    get requests() {
      return model!.requests
        .filter((r) => r.path.endsWith('/chat/completions') || r.path.endsWith('/messages'))
        .map((r) => r.body);
    },
  };
}

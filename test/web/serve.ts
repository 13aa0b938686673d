/**
 * Runs the real `tea serve` (the built CLI, in a child process) against the
 * scripted model server, with a temp TEA_HOME and workspace.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type CliEnv, cliEnv, spawnTea } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

export interface TeaServer {
  url: string;
  model: ModelServer;
  ctx: CliEnv;
  /** Everything the server printed on stderr so far (for failure messages). */
  stderr(): string;
  close(): Promise<void>;
}

const LISTENING = /tea serve: listening on (http:\/\/[^\s]+)/;

export interface TeaServerOptions {
  /** More environment for `tea serve` (e.g. `TEA_API_TOKEN`). */
  env?: NodeJS.ProcessEnv;
  /** The model ids of the main profile and of the profile `second`. */
  models?: { main?: string; second?: string };
  startTimeoutMs?: number;
  /** Name sessions on the (scripted) model after their first turn: a second request per new session. */
  autoTitle?: boolean;
  /** Retries per model call (default none, so every scripted reply is used once). */
  retries?: number;
  /** More config.yaml text, appended (e.g. `mcp_servers`). */
  extraConfig?: string;
}

function configYaml(modelUrl: string, opts: TeaServerOptions): string {
  const models = opts.models ?? {};
  const profile = (model: string) => `  base_url: ${modelUrl}\n  api_key: sk-test\n  model: ${model}\n`;
  return [
    `main_model:\n${profile(models.main ?? 'scripted-model')}`,
    `profiles:\n  second:\n${profile(models.second ?? 'scripted-second').replace(/^ {2}/gm, '    ')}`,
    // No background model calls (unless asked for): every scripted reply belongs to the test that queued it.
    `agent:\n  auto_title: ${opts.autoTitle === true}\n`,
    'memory:\n  extract: false\n',
    `llm:\n  max_retries: ${opts.retries ?? 0}\n  retry_base_ms: 10\n`,
    opts.extraConfig ?? '',
  ].join('');
}

/** Starts `tea serve --port 0` and waits for its "listening" line. */
export async function startTeaServer(
  extraArgs: string[] = [],
  opts: TeaServerOptions = {},
): Promise<TeaServer> {
  const startTimeoutMs = opts.startTimeoutMs ?? 15_000;
  const model = await startModelServer();
  const ctx = cliEnv(opts.env);
  writeFileSync(path.join(ctx.home, 'config.yaml'), configYaml(model.openaiBaseUrl, opts));
  const child = spawnTea(['serve', '--port', '0', '--cwd', ctx.work, ...extraArgs], {
    env: ctx.env,
    cwd: ctx.work,
  });
  let stderr = '';
  child.stdout?.resume();
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tea serve did not start:\n${stderr}`)), startTimeoutMs);
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      const match = LISTENING.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1].replace(/\/$/, ''));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`tea serve exited with ${code}:\n${stderr}`));
    });
  });
  return {
    url,
    model,
    ctx,
    stderr: () => stderr,
    async close() {
      await stop(child);
      await model.close();
      ctx.cleanup();
    },
  };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

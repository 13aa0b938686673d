/**
 * The built `tea serve` on loopback against the scripted model server: one model server
 * per file, a clean home per test, and `start(args)` spawning the server (stopped after
 * each test). Background cheap-model jobs and titles are off, so the model server's
 * recorded requests are the turns' own.
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach } from 'vitest';
import { listening, NO_MEMORY_JOBS, spawnTea, useScriptedCli } from './cli.js';
import type { ModelServer } from './model-server.js';

export const QUIET_CONFIG = `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n`;

export interface TeaServe {
  readonly model: ModelServer;
  /** The server's workspace (`--cwd`). */
  readonly work: string;
  /** The test's TEA_HOME (config.yaml there is read at start). */
  readonly home: string;
  /** Starts `tea serve --port 0` with `args`; resolves with its base URL. */
  start(args?: string[]): Promise<string>;
  /** What the running server wrote to stderr so far. */
  stderr(): string;
}

export function useTeaServe(config = QUIET_CONFIG): TeaServe {
  const cli = useScriptedCli('sk-test', { config });
  const children: ChildProcess[] = [];
  let err = '';
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    err = '';
  });
  return {
    get model() {
      return cli.server;
    },
    get work() {
      return cli.ctx.work;
    },
    get home() {
      return cli.ctx.home;
    },
    start(args = []) {
      const child = spawnTea(['serve', '--port', '0', '--cwd', cli.ctx.work, '--no-upkeep', ...args], {
        env: cli.ctx.env,
      });
      child.stderr?.on('data', (d: Buffer) => {
        err += d.toString();
      });
      children.push(child);
      return listening(child);
    },
    stderr: () => err,
  };
}

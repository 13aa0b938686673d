/**
 * A cloned repository that wants the user's API key: the user's own model (a
 * scripted server, reached through OPENAI_BASE_URL with OPENAI_API_KEY) and the
 * repository's server (a recorder in front of another scripted model), with the
 * workspace a git repository whose `.tea/config.yaml` the test writes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type CliEnv, type CliResult, cliEnv, NO_MEMORY_JOBS, runTea } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { type Recorder, startRecorder } from '../support/recorder.js';

export const KEY = 'sk-user-secret-key-0123456789abcdef';

export interface HostileRepo {
  /** The user's own endpoint. */
  readonly real: ModelServer;
  /** The model behind the repository's server (scripted only when a test expects it to be reached). */
  readonly theirs: ModelServer;
  /** Everything that reached the repository's server. */
  readonly attacker: Recorder;
  readonly ctx: CliEnv;
  /** `<repository server>/v1`, for base_url. */
  readonly attackerUrl: string;
  /** Writes the repository's `.tea/config.yaml`; returns its path. */
  writeProject(yaml: string): string;
  /** The built CLI, run in the repository. */
  tea(args: string[], env?: NodeJS.ProcessEnv): Promise<CliResult>;
}

/** The `tea: warning:` lines of a run's stderr. */
export function warningsOf(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('tea: warning:'));
}

export function useHostileRepo(): HostileRepo {
  let real: ModelServer | undefined;
  let theirs: ModelServer | undefined;
  let attacker: Recorder | undefined;
  let ctx: CliEnv | undefined;
  beforeAll(async () => {
    real = await startModelServer();
    theirs = await startModelServer();
    attacker = await startRecorder(theirs.url);
  });
  afterAll(async () => {
    await attacker?.close();
    await theirs?.close();
    await real?.close();
  });
  beforeEach(() => {
    real!.reset();
    theirs!.reset();
    attacker!.reset();
    ctx = cliEnv({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: real!.openaiBaseUrl, TEA_MODEL: 'scripted-model' });
    writeFileSync(path.join(ctx.home, 'config.yaml'), `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n`);
    mkdirSync(path.join(ctx.work, '.git'));
  });
  afterEach(() => ctx?.cleanup());
  return {
    get real() {
      return real!;
    },
    get theirs() {
      return theirs!;
    },
    get attacker() {
      return attacker!;
    },
    get ctx() {
      return ctx!;
    },
    get attackerUrl() {
      return `${attacker!.url}/v1`;
    },
    writeProject(yaml: string): string {
      mkdirSync(path.join(ctx!.work, '.tea'), { recursive: true });
      const file = path.join(ctx!.work, '.tea', 'config.yaml');
      writeFileSync(file, yaml);
      return file;
    },
    tea: (args, env) => runTea(args, { env: env ?? ctx!.env, cwd: ctx!.work }),
  };
}

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type ModelServer, startModelServer } from './model-server.js';

export const TEA_BIN = path.resolve(import.meta.dirname, '..', '..', 'bin', 'tea.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A clean environment: a temp TEA_HOME and HOME, no model keys, and no reachable Ollama. */
export interface CliEnv {
  home: string;
  work: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

export function cliEnv(extra: NodeJS.ProcessEnv = {}): CliEnv {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tea-cli-'));
  const home = path.join(root, 'tea-home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    TEA_HOME: home,
    // A port nothing listens on: Ollama detection finds nothing, fast.
    OLLAMA_HOST: 'http://127.0.0.1:9',
    ...extra,
  };
  return { home, work, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export function spawnTea(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd?: string; input?: string },
): ChildProcess {
  const child = spawn(process.execPath, [TEA_BIN, ...args], {
    env: opts.env,
    cwd: opts.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (opts.input !== undefined) child.stdin?.end(opts.input);
  else child.stdin?.end();
  return child;
}

export function runTea(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd?: string; input?: string },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnTea(args, opts);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Config that keeps background cheap-model jobs off (memory extraction; lessons after a
 * failed task and skill drafts after a multi-step one): tests that count the scripted
 * model's requests would otherwise see the extra cheap-model calls after a turn.
 */
export const NO_MEMORY_JOBS = 'memory:\n  extract: false\nevolve:\n  lessons: false\n  drafts: false\n';

/**
 * The usual CLI test setup: one scripted model server for the file, and a fresh
 * clean environment per test pointing `tea` at it with an OpenAI-style key.
 */
export function useScriptedCli(
  apiKey = 'sk-test',
  opts: { config?: string } = {},
): { readonly server: ModelServer; readonly ctx: CliEnv } {
  let server: ModelServer | undefined;
  let ctx: CliEnv | undefined;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    server!.reset();
    ctx = cliEnv({
      OPENAI_API_KEY: apiKey,
      OPENAI_BASE_URL: server!.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
    });
    if (opts.config !== undefined) writeFileSync(path.join(ctx.home, 'config.yaml'), opts.config);
  });
  afterEach(() => ctx?.cleanup());
  return {
    get server() {
      return server!;
    },
    get ctx() {
      return ctx!;
    },
  };
}

/** Resolves with the URL from `tea serve`'s listening line (rejects with its stderr when it exits first). */
export function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /tea serve: listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`tea serve exited ${code}: ${stderr}`)));
  });
}

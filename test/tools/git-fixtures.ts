/** Fixtures for the git tool tests: temp dirs, real repositories, a runner for the git tools. */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ToolCallPart } from '../../src/llm/types.js';
import { type GitToolOptions, gitTools } from '../../src/tools/builtin/git.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import type { ToolContext } from '../../src/tools/types.js';

// Self-contained (helpers.ts pulls in every builtin family, which these tests do not need).
const created: string[] = [];
afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

export async function tempDir(prefix = 'tea-git-'): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), content);
  }
}

export function makeCtx(cwd: string, signal = new AbortController().signal): ToolContext {
  return { cwd, sessionId: 's1', callId: 'c1', signal };
}

let calls = 0;
export function call(name: string, args: Record<string, unknown>): ToolCallPart {
  calls++;
  return { type: 'tool-call', id: `call_${calls}`, name, args };
}

// Keep the user's own git configuration (signing, hooks, aliases) out of these tests.
const savedEnv = { global: process.env.GIT_CONFIG_GLOBAL, nosystem: process.env.GIT_CONFIG_NOSYSTEM };
beforeAll(() => {
  process.env.GIT_CONFIG_GLOBAL = '/dev/null';
  process.env.GIT_CONFIG_NOSYSTEM = '1';
});
afterAll(() => {
  for (const [key, value] of [
    ['GIT_CONFIG_GLOBAL', savedEnv.global],
    ['GIT_CONFIG_NOSYSTEM', savedEnv.nosystem],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
}

/** A commit of everything with fixed author and committer dates. */
export function commitAt(cwd: string, date: string, message: string, ...extra: string[]): void {
  git(cwd, 'add', '-A');
  execFileSync('git', [...extra, 'commit', '-q', '-m', message], {
    cwd,
    env: { ...process.env, GIT_AUTHOR_DATE: `${date}T12:00:00Z`, GIT_COMMITTER_DATE: `${date}T12:00:00Z` },
  });
}

export async function commitFiles(
  cwd: string,
  files: Record<string, string>,
  message: string,
): Promise<void> {
  await writeTree(cwd, files);
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-q', '-m', message);
}

/** A real repository on branch main with one commit of README.md. */
export async function makeRepo(files: Record<string, string> = { 'README.md': 'hello\n' }): Promise<string> {
  const dir = await tempDir('tea-git-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Tea Tester');
  git(dir, 'config', 'user.email', 'tea@example.com');
  await commitFiles(dir, files, 'initial commit');
  return dir;
}

export function gitRegistry(opts: GitToolOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.registerAll(gitTools(opts));
  return registry;
}

export const registry = gitRegistry();

/** Runs one git tool through the real runner, as the agent loop would. */
export function run(
  cwd: string,
  name: string,
  args: Record<string, unknown> = {},
  reg = registry,
): Promise<ToolRunResult> {
  return runTool(reg, call(name, args), makeCtx(cwd));
}

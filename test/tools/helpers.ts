import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import type { ToolCallPart } from '../../src/llm/types.js';
import { type BuiltinToolOptions, builtinTools } from '../../src/tools/builtin/all.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { type RunToolOptions, runTool, type ToolRunResult } from '../../src/tools/run.js';
import type { Tool, ToolContext } from '../../src/tools/types.js';

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh real temp directory, removed after the test. */
export async function tempDir(prefix = 'tea-tools-'): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

/** Writes files (creating parents) under `root`; returns `root`. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<string> {
  for (const [rel, content] of Object.entries(files)) {
    const full = join(root, rel);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }
  return root;
}

export function makeCtx(cwd: string, extra: Partial<ToolContext> = {}): ToolContext {
  return { cwd, sessionId: 's1', callId: 'c1', signal: new AbortController().signal, ...extra };
}

let callCounter = 0;
export function call(name: string, args: Record<string, unknown> = {}, argsError?: string): ToolCallPart {
  callCounter++;
  const part: ToolCallPart = { type: 'tool-call', id: `call_${callCounter}`, name, args };
  if (argsError !== undefined) part.argsError = argsError;
  return part;
}

export function builtinRegistry(options: BuiltinToolOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.registerAll(builtinTools(options));
  return registry;
}

/** Runs one builtin through the real runner, as the agent loop would. */
export async function runBuiltin(
  cwd: string,
  name: string,
  args: Record<string, unknown>,
  opts: { ctx?: Partial<ToolContext>; tools?: BuiltinToolOptions; run?: RunToolOptions } = {},
): Promise<ToolRunResult> {
  return runTool(builtinRegistry(opts.tools), call(name, args), makeCtx(cwd, opts.ctx), opts.run);
}

/** True while `pid` is a live (non-zombie) process. */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const { readFile } = await import('node:fs/promises');
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch (err) {
    // Gone between the two checks: dead.
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * Whether `pid` is dead now or dies within `withinMs`: a killed process is reaped a
 * moment after the signal, so a check right after a kill may still see it.
 */
export async function diesSoon(pid: number, withinMs = 5000): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (await isAlive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

/** Runs one call against a registry of just `tools` (a single family under test). */
export function runFamily(
  tools: Tool[],
  name: string,
  args: Record<string, unknown>,
  ctx: { cwd?: string } & Partial<ToolContext> = {},
): Promise<ToolRunResult> {
  const registry = new ToolRegistry();
  registry.registerAll(tools);
  const { cwd = process.cwd(), ...rest } = ctx;
  return runTool(registry, call(name, args), makeCtx(cwd, rest));
}

/** Running the files family through the real runner, on a registry of just these tools. */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { type FileToolOptions, fileTools } from '../../src/tools/builtin/files.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { type RunToolOptions, runTool, type ToolRunResult } from '../../src/tools/run.js';
import type { ToolContext } from '../../src/tools/types.js';
import { call, makeCtx } from './helpers.js';

export function fileRegistry(options: FileToolOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.registerAll(fileTools(options));
  return registry;
}

export async function runFile(
  cwd: string,
  name: string,
  args: Record<string, unknown>,
  opts: { ctx?: Partial<ToolContext>; tools?: FileToolOptions; run?: RunToolOptions } = {},
): Promise<ToolRunResult> {
  return runTool(fileRegistry(opts.tools), call(name, args), makeCtx(cwd, opts.ctx), opts.run);
}

/** Every file below `root` (relative path -> content), to assert that nothing changed. */
export async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isSymbolicLink()) out[relative(root, full)] = '<symlink>';
      else out[relative(root, full)] = await readFile(full, 'latin1');
    }
  };
  await walk(root);
  return out;
}

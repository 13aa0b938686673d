/**
 * User tools: the time from a tool_create call to the tool being callable (esbuild
 * bundles the module, the static check reads it, the module is evaluated and checked,
 * saved, loaded back from disk and registered), the first one in a process apart
 * (esbuild's service starting, zod loading); and the first call of a saved tool in a
 * new registry (read, hash, re-check, evaluate). Prints figures; asserts nothing.
 * Run alone: node --import tsx bench/user-tools.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ToolRegistry } from '../src/tools/registry.js';
import { runTool } from '../src/tools/run.js';
import { registerUserTools } from '../src/tools/user/register.js';
import { fmt, stats } from './startup.js';

const source = (name: string) => `import * as z from 'zod';
import { readFileSync } from 'node:fs';
export default {
  name: '${name}',
  description: 'Counts the words of a text or a file.',
  approval: 'none',
  parameters: z.object({ text: z.string().optional(), path: z.string().optional() }),
  run(args: { text?: string; path?: string }) {
    const text = args.path ? readFileSync(args.path, 'utf8') : (args.text ?? '');
    return 'words: ' + text.split(/\\s+/).filter(Boolean).length;
  },
};
`;

export async function benchUserTools(runs = 10): Promise<void> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-usertools-'));
  try {
    const registry = new ToolRegistry();
    registerUserTools(registry, { home });
    let id = 0;
    const call = async (reg: ToolRegistry, name: string, args: Record<string, unknown>) => {
      const ctx = { cwd: home, sessionId: 'bench', callId: `c${++id}`, signal: new AbortController().signal };
      const r = await runTool(reg, { type: 'tool-call', id: ctx.callId, name, args }, ctx);
      if (r.isError) throw new Error(r.output);
    };
    const createMs: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const name = `bench_tool_${i}`;
      const t0 = performance.now();
      await call(registry, 'tool_create', { name, code: source(name) });
      await call(registry, name, { text: 'one two three' });
      createMs.push(performance.now() - t0);
    }
    const [first, ...rest] = createMs;
    const s = stats(rest);
    const fresh = new ToolRegistry();
    registerUserTools(fresh, { home });
    const loadMs: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const t0 = performance.now();
      await call(fresh, `bench_tool_${i}`, { text: 'a b' });
      loadMs.push(performance.now() - t0);
    }
    const l = stats(loadMs);
    console.log(
      `user tools: tool_create → callable ${fmt(first!)} first in a process, then median ${fmt(s.median)} (p90 ${fmt(s.p90)}, n=${rest.length}); first call of a saved tool in a new registry median ${fmt(l.median)} (p90 ${fmt(l.p90)})`,
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchUserTools();

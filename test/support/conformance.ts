/**
 * The official MCP conformance runner (@modelcontextprotocol/conformance 0.1.16) as a
 * command: `node --import node20-fs.mjs …/conformance/dist/index.js`, so it runs on Node 20
 * (see node20-fs.mjs). Spawn `CONFORMANCE.command` with `[...CONFORMANCE.args, 'server', …]`.
 */
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

export const CONFORMANCE = {
  command: process.execPath,
  args: [
    '--import',
    path.join(ROOT, 'test', 'support', 'node20-fs.mjs'),
    path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
  ],
} as const;

/** The runner's summary line: `Passed: 3/4, 1 failed, 0 warnings` (null when absent). */
export function conformanceSummary(stdout: string): { passed: number; total: number; failed: number } | null {
  const m = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(stdout);
  return m ? { passed: Number(m[1]), total: Number(m[2]), failed: Number(m[3]) } : null;
}

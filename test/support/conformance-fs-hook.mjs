/**
 * Test-only ESM loader hook for @modelcontextprotocol/conformance 0.1.16 on Node 20: that
 * package imports `globSync` from 'fs' (Node 22+), so it fails to link on Node 20. Run it as
 * `node --import <this file> …/conformance/dist/index.js …`: this file registers itself as a
 * resolve hook that maps the conformance package's 'fs' / 'node:fs' imports to
 * conformance-fs-shim.mjs (node:fs plus a globSync on tinyglobby); everyone else gets node:fs.
 * (Same idea as the MCP-server helper's node20-fs.mjs; kept separate until one of them lands.)
 */
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const SHIM = new URL('./conformance-fs-shim.mjs', import.meta.url).href;
const CONFORMANCE = '/node_modules/@modelcontextprotocol/conformance/';

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(CONFORMANCE)) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}

if (isMainThread) register(import.meta.url);

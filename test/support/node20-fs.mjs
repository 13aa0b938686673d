/**
 * Test-only ESM loader hook: runs @modelcontextprotocol/conformance 0.1.16 on Node 20.
 * That package imports `globSync` from 'fs', which Node 20 lacks (it came in Node 22),
 * so its module fails to link. Loaded with `node --import <this file> …/conformance/dist/index.js`,
 * this file registers itself as a resolve hook (module.register) that maps the
 * conformance package's 'fs' / 'node:fs' imports to node20-fs-shim.mjs: node:fs plus
 * a globSync built on tinyglobby. Every other importer gets the real node:fs.
 */
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const SHIM = new URL('./node20-fs-shim.mjs', import.meta.url).href;
const CONFORMANCE = '/node_modules/@modelcontextprotocol/conformance/';

/** The hook (runs in the loader thread). */
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(CONFORMANCE)) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}

// As the --import file (main thread): register this same file as the hooks module.
if (isMainThread) register(import.meta.url);

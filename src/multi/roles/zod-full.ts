/**
 * zod with `fromJSONSchema`, for role output schemas. It pulls in all of zod's classic
 * API (about 350 KB more than the rest of tea uses), so the bundle leaves `zod/v4` out
 * (scripts/build.mjs: external) and it loads from node_modules only when a role with an
 * output schema is loaded or checked.
 */
import type { z } from 'zod';

export type FullZod = typeof z;

/** The whole `zod` module (what `import … from 'zod'` gives), from node_modules. */
export async function loadZodModule(): Promise<typeof import('zod')> {
  return (await import('zod/v4')) as typeof import('zod');
}

/** zod's `z` namespace, from node_modules. */
export async function loadZod(): Promise<FullZod> {
  return (await loadZodModule()).z;
}

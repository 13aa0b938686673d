/**
 * The built-in tool set, one family per module (families.ts). A registry made here
 * knows every tool from the catalogue (catalogue.ts) and loads a family's module when
 * one of its tools is first called; `all.ts` builds every tool at once.
 */
import { ToolRegistry } from '../registry.js';
import { registerBuiltins } from './catalogue.js';
import type { BuiltinToolOptions } from './families.js';

export type { BuiltinOptions } from './options.js';
export type { WebSearchConfig } from './web-http.js';
export type { BuiltinToolOptions };

/** A registry with every built-in tool, tool_search and tool_list included. */
export async function createToolRegistry(options: BuiltinToolOptions = {}): Promise<ToolRegistry> {
  const registry = new ToolRegistry();
  await registerBuiltins(registry, options);
  return registry;
}

/** The built-in tool set, one family per file. */
import { ToolRegistry } from '../registry.js';
import type { Tool } from '../types.js';
import { dataTools } from './data.js';
import { type ExecToolOptions, execTools } from './exec.js';
import type { FileToolOptions } from './file-options.js';
import { fileTools } from './files.js';
import { gitTools } from './git.js';
import { interactionTools } from './interaction.js';
import { metaTools } from './meta.js';
import { type SearchToolOptions, searchTools } from './search.js';
import { type SystemToolOptions, systemTools } from './system.js';
import { webTools } from './web.js';
import type { WebSearchConfig } from './web-http.js';

export type { GrepBackend, GrepRequest, GrepResult } from './grep-js.js';
export { jsGrepBackend } from './grep-js.js';
export type { BuiltinOptions } from './options.js';
export type { WebSearchConfig } from './web-http.js';
export { execTools, fileTools, searchTools };

/** Options for every built-in family; all limits have defaults. */
export type BuiltinToolOptions = FileToolOptions &
  SearchToolOptions &
  ExecToolOptions & {
    /** web_search provider; absent means search is off. */
    webSearch?: WebSearchConfig;
    /** Extra variable names env_get may read and child processes keep despite scrubbing. */
    envAllow?: string[];
    system?: SystemToolOptions;
  };

/** Every built-in tool except the meta tools (which need the registry). */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return [
    ...fileTools(options),
    ...searchTools(options),
    ...execTools(options),
    ...gitTools(),
    ...webTools(options.webSearch ? { search: options.webSearch } : {}),
    ...systemTools({ ...options.system, ...(options.envAllow ? { envAllow: options.envAllow } : {}) }),
    ...dataTools(),
    ...interactionTools(),
  ];
}

/** A registry with every built-in tool, tool_search and tool_list included. */
export function createToolRegistry(options: BuiltinToolOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.registerAll(builtinTools(options));
  registry.registerAll(metaTools(registry));
  return registry;
}

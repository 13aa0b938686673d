/**
 * Every built-in tool built at once, from statically imported families: for tests and
 * tools that want them whole. The runtime uses `createToolRegistry` (index.ts), which
 * loads each family on first use.
 */
import type { Tool } from '../types.js';
import { dataTools } from './data.js';
import { execTools } from './exec.js';
import type { BuiltinToolOptions } from './families.js';
import { fileTools } from './files.js';
import { gitTools } from './git.js';
import { interactionTools } from './interaction.js';
import { searchTools } from './search.js';
import { systemTools } from './system.js';
import { webTools } from './web.js';

export type { GrepBackend, GrepRequest, GrepResult } from './grep-js.js';
export { jsGrepBackend } from './grep-js.js';
export type { BuiltinToolOptions };
export { execTools, fileTools, searchTools };

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

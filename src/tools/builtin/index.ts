/** The built-in tool set. */
import type { Tool } from '../types.js';
import { execTools } from './exec.js';
import { fileTools } from './files.js';
import { type SearchToolOptions, searchTools } from './search.js';

export type { GrepBackend, GrepRequest, GrepResult } from './grep-js.js';
export { jsGrepBackend } from './grep-js.js';
export type { BuiltinOptions } from './options.js';
export { execTools, fileTools, searchTools };

/** Options for every built-in family; all limits have defaults. */
export type BuiltinToolOptions = SearchToolOptions;

/** read_file, write_file, edit_file, list_dir, glob, grep, bash. */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return [...fileTools(options), ...searchTools(options), ...execTools(options)];
}

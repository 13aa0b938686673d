/** `tea mcp serve` (loaded only by that command): stdio and HTTP, user tools and content. */
import type { TeaConfig } from '../config/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { PermissionView } from '../tools/types.js';
import { registerUserTools } from '../tools/user/register.js';
import { type RuntimeContent, runtimeContent } from './mcp-serve-content.js';

export { serveStdio } from '../tools/mcp/serve.js';

/** Each warning once, on stderr (a commands folder is read on every prompts request). */
function warnOnce(): (message: string) => void {
  const seen = new Set<string>();
  return (message) => {
    if (seen.has(message)) return;
    seen.add(message);
    process.stderr.write(`tea mcp serve: warning: ${message}\n`);
  };
}

/**
 * What `tea mcp serve` adds to the built-in tools: the user's tools (TEA_HOME/tools),
 * and resources and prompts of the workspace (see mcp-serve-content.ts).
 */
export function serveExtras(
  config: TeaConfig,
  registry: ToolRegistry,
  cwd: string,
  permissions: PermissionView,
): { content: RuntimeContent } {
  const warn = warnOnce();
  registerUserTools(registry, { home: config.home, warn });
  return { content: runtimeContent({ config, cwd, permissions, warn }) };
}

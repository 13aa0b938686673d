/**
 * MCP both ways. The client side (`attachMcp`) is cheap to load: the SDK is
 * imported only when a server is first used. The server side lives in serve.ts
 * (import it directly; it is only for `tea mcp serve`).
 */
import type { ToolRegistry } from '../registry.js';
import { McpManager, type McpManagerOptions } from './manager.js';
import type { McpServerConfig } from './types.js';

export { bridgeName, MCP_CATEGORY } from './bridge.js';
export { cacheFile, readToolCache } from './cache.js';
export {
  getPrompt,
  listPrompts,
  listResources,
  type McpServerOverview,
  overview,
  readResource,
} from './catalog.js';
export type { McpConnection } from './connection.js';
export { DEFAULT_MCP_TIMEOUT_MS, McpManager, type McpManagerOptions } from './manager.js';
export type { LoginUi } from './oauth.js';
export { mapCallResult } from './result.js';
export { DEFAULT_SAMPLING_LIMITS, type SamplingLimits } from './sampling.js';
export type {
  McpHttpServerConfig,
  McpOAuthSettings,
  McpServerConfig,
  McpStdioServerConfig,
  McpToolInfo,
} from './types.js';
export { isStdioServer } from './types.js';

/**
 * Registers the bridge tools of every enabled server from its cached tool list
 * (no server is started); servers without a cache are connected by the first
 * `tool_search`. Close the returned manager on shutdown.
 */
export async function attachMcp(
  registry: ToolRegistry,
  servers: Readonly<Record<string, McpServerConfig>>,
  opts: McpManagerOptions,
): Promise<McpManager> {
  const manager = new McpManager(registry, servers, opts);
  manager.registerCached();
  if (manager.serverNames().length > 0) {
    const { promptTool, resourceTool } = await import('./resources-tools.js');
    registry.registerAll([resourceTool(manager), promptTool(manager)]);
  }
  return manager;
}

/** MCP servers as `tea mcp list | tools | call | login | logout` sees them: the manager, caches, OAuth state. */
export {
  bridgeName,
  type LoginUi,
  McpManager,
  type McpServerConfig,
  mapCallResult,
  readToolCache,
} from '../tools/mcp/index.js';
export { OAuthStore, serverKey, TokenFileError } from '../tools/mcp/oauth-store.js';
export { ToolRegistry } from '../tools/registry.js';
export { ToolError } from '../tools/types.js';

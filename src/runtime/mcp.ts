/** MCP servers as `tea mcp list | tools | call | login | logout`, `/mcp` and the web panel see them: the manager, caches, OAuth state, resources and prompts. */
export {
  bridgeName,
  getPrompt,
  type LoginUi,
  listPrompts,
  McpManager,
  type McpServerConfig,
  type McpServerOverview,
  mapCallResult,
  overview,
  readResource,
  readToolCache,
} from '../tools/mcp/index.js';
export { OAuthStore, serverKey, TokenFileError } from '../tools/mcp/oauth-store.js';
export { ToolRegistry } from '../tools/registry.js';
export { ToolError } from '../tools/types.js';

/** MCP servers as `tea mcp list | tools`, `/mcp` and the web panel see them: the manager, cached tool lists, bridged names, resources and prompts. */
export {
  bridgeName,
  getPrompt,
  listPrompts,
  McpManager,
  type McpServerOverview,
  overview,
  readResource,
  readToolCache,
} from '../tools/mcp/index.js';
export { ToolRegistry } from '../tools/registry.js';
export { ToolError } from '../tools/types.js';

/** MCP servers as `tea mcp list | tools` sees them: the manager, the cached tool lists, bridged names. */
export { bridgeName, McpManager, readToolCache } from '../tools/mcp/index.js';
export { ToolRegistry } from '../tools/registry.js';
export { ToolError } from '../tools/types.js';

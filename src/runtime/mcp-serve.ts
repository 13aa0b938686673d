/** `tea mcp serve` over stdio (loaded only by that command). */
export { serveStdio } from '../tools/mcp/serve.js';

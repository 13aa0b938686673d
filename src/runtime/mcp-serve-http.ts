/** `tea mcp serve --http` (loaded only by that command). */
export { serveHttp } from '../tools/mcp/serve-http.js';

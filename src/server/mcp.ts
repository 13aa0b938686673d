/**
 * MCP routes for the web page's MCP panel: the configured servers with their status,
 * tools, resources, resource templates and prompts; reading one resource; filling in
 * one prompt. Servers not running yet are started to list what they offer.
 */
import * as z from 'zod';
import type { McpManager } from '../runtime/mcp.js';
import { apiError } from './errors.js';
import { type AppContext, doc } from './routes.js';
import { readJson, readQuery } from './validate.js';

const readQuerySchema = z.object({ uri: z.string().min(1).describe('The resource URI') });
const promptBody = z.object({
  arguments: z.record(z.string(), z.string()).default({}).describe("The prompt's arguments by name"),
});

/** The server `name`, or a 404 naming the configured ones. */
function known(mcp: McpManager | undefined, name: string): McpManager {
  const names = mcp?.serverNames() ?? [];
  if (!mcp || !names.includes(name)) {
    throw apiError(
      404,
      `no MCP server named "${name}"; ${names.length ? `configured: ${names.join(', ')}` : 'none is configured (mcp_servers in config.yaml)'}`,
      { param: 'name', code: 'mcp_server_not_found' },
    );
  }
  return mcp;
}

/** A server's failure as a 502 that names it. */
function upstream(error: unknown): never {
  throw apiError(502, error instanceof Error ? error.message : String(error), {
    type: 'server_error',
    code: 'mcp_server_error',
  });
}

export function mcpRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  const tag = 'mcp';

  doc(ctx, { method: 'get', path: '/v1/mcp/servers', summary: 'MCP servers and what they offer', tag });
  app.get('/v1/mcp/servers', async (c) => {
    if (!deps.mcp) return c.json({ object: 'list', data: [] });
    const { overview } = await import('../runtime/mcp.js');
    const all = await overview(deps.mcp, { connect: true });
    return c.json({
      object: 'list',
      data: all.map((s) => ({
        name: s.name,
        transport: s.transport,
        status: s.status,
        error: s.error ?? null,
        tools: s.tools,
        resources: s.resources,
        resource_templates: s.templates,
        prompts: s.prompts,
      })),
    });
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/mcp/servers/:name/resource',
    summary: "Reads one of an MCP server's resources",
    tag,
    query: readQuerySchema,
  });
  app.get('/v1/mcp/servers/:name/resource', async (c) => {
    const name = c.req.param('name');
    const mcp = known(deps.mcp, name);
    const { uri } = readQuery(c, readQuerySchema);
    const { readResource } = await import('../runtime/mcp.js');
    const r = await readResource(mcp, name, uri).catch(upstream);
    return c.json({ uri, text: r.text, images: r.images.map((i) => ({ media_type: i.mediaType })) });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/mcp/servers/:name/prompts/:prompt',
    summary: "Fills in one of an MCP server's prompts",
    tag,
    body: promptBody,
  });
  app.post('/v1/mcp/servers/:name/prompts/:prompt', async (c) => {
    const name = c.req.param('name');
    const mcp = known(deps.mcp, name);
    const body = await readJson(c, promptBody, { optional: true });
    const { getPrompt } = await import('../runtime/mcp.js');
    const r = await getPrompt(mcp, name, c.req.param('prompt'), body?.arguments ?? {}).catch(upstream);
    const text =
      r.messages.length === 1 && r.messages[0]!.role === 'user'
        ? r.messages[0]!.text
        : r.messages.map((m) => `${m.role}: ${m.text}`).join('\n\n');
    return c.json({ description: r.description ?? null, messages: r.messages, text });
  });
}

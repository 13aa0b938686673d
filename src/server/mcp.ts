/**
 * MCP routes for the web page's MCP panel: the configured servers with their status,
 * tools, resources, resource templates and prompts; reading one resource; filling in
 * one prompt. Servers not running yet are started to list what they offer. A client's
 * mistake (an unknown prompt or resource, a missing argument) is a 404 or 400 naming
 * it; a server that fails is a 502.
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

/** JSON-RPC codes a server answers a client's mistake with: invalid params; resource not found (MCP). */
const INVALID_PARAMS = -32602;
const RESOURCE_NOT_FOUND = -32002;

/**
 * A failed request as an HTTP error: the client's mistake (the server answered
 * invalid params or not found) a 400 or 404 naming `param`; any other failure of the
 * server a 502 that names it.
 */
function upstream(param: 'uri' | 'arguments' | 'prompt'): (error: unknown) => never {
  return (error) => {
    const raw = error instanceof Error ? error.message : String(error);
    // The SDK prefixes the server's text with `MCP error -32602: ` (twice, once per layer).
    const message = raw.replace(/(MCP error -?\d+: )+/g, '');
    const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    const notFound =
      code === RESOURCE_NOT_FOUND || (code === INVALID_PARAMS && /not found|unknown/i.test(message));
    if (notFound)
      throw apiError(404, message, {
        param,
        code: param === 'uri' ? 'mcp_resource_not_found' : 'mcp_prompt_not_found',
      });
    if (code === INVALID_PARAMS) throw apiError(400, message, { param, code: 'mcp_invalid_params' });
    throw apiError(502, raw, { type: 'server_error', code: 'mcp_server_error' });
  };
}

/** The prompt `name` of `server` with every required argument in `args`: else a 404 or a 400 naming what is missing. */
async function checkPrompt(mcp: McpManager, server: string, name: string, args: Record<string, string>) {
  const { listPrompts } = await import('../runtime/mcp.js');
  const prompts = await listPrompts(mcp, server).catch(upstream('prompt'));
  const prompt = prompts.find((p) => p.name === name);
  if (!prompt) {
    const names = prompts.map((p) => p.name);
    throw apiError(
      404,
      `MCP server "${server}" has no prompt "${name}"; ${names.length ? `its prompts: ${names.join(', ')}` : 'it offers none'}`,
      { param: 'prompt', code: 'mcp_prompt_not_found' },
    );
  }
  const missing = prompt.arguments.filter((a) => a.required && !args[a.name]?.trim());
  if (missing.length > 0) {
    throw apiError(
      400,
      `prompt "${name}" needs ${missing.map((a) => `"${a.name}"`).join(', ')} (arguments: ${prompt.arguments.map((a) => a.name).join(', ')})`,
      { param: `arguments.${missing[0]!.name}`, code: 'missing_prompt_argument' },
    );
  }
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
    const r = await readResource(mcp, name, uri).catch(upstream('uri'));
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
    const prompt = c.req.param('prompt');
    const args = body?.arguments ?? {};
    await checkPrompt(mcp, name, prompt, args);
    const { getPrompt } = await import('../runtime/mcp.js');
    const r = await getPrompt(mcp, name, prompt, args).catch(upstream('arguments'));
    const text =
      r.messages.length === 1 && r.messages[0]!.role === 'user'
        ? r.messages[0]!.text
        : r.messages.map((m) => `${m.role}: ${m.text}`).join('\n\n');
    return c.json({ description: r.description ?? null, messages: r.messages, text });
  });
}

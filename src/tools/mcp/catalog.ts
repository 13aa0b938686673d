/**
 * What MCP servers offer besides tools — resources, resource templates and prompts —
 * read through their connections, for the model's `mcp_resource` / `mcp_prompt` tools,
 * the terminal's `/mcp` and the web page's MCP panel.
 */
import type { McpManager } from './manager.js';
import { isStdioServer, type McpServerConfig } from './types.js';

export interface McpResourceInfo {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

export interface McpTemplateInfo {
  uriTemplate: string;
  name: string;
  description?: string;
}

export interface McpPromptInfo {
  name: string;
  description?: string;
  arguments: Array<{ name: string; description?: string; required: boolean }>;
}

/** One server as `/mcp` and the web panel show it. */
export interface McpServerOverview {
  name: string;
  transport: 'stdio' | 'http';
  /** not started, connected, crashed, closed, disabled, or `error` (then `error` says why). */
  status: 'not started' | 'connected' | 'crashed' | 'closed' | 'disabled' | 'error';
  error?: string;
  /** Bridge names of its tools (`mcp__<server>__<tool>`). */
  tools: string[];
  resources: McpResourceInfo[];
  templates: McpTemplateInfo[];
  prompts: McpPromptInfo[];
}

const MAX_PAGES = 20;

const optional = <K extends string>(key: K, value: string | undefined): { [P in K]?: string } =>
  (value ? { [key]: value } : {}) as { [P in K]?: string };

/** Every page of a paginated list request. */
async function allPages<T>(
  fetch: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await fetch(cursor);
    out.push(...r.items);
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return out;
}

export async function listResources(
  manager: McpManager,
  server: string,
): Promise<{ resources: McpResourceInfo[]; templates: McpTemplateInfo[] }> {
  const conn = manager.connection(server);
  await conn.connect();
  if (!conn.capabilities?.resources) return { resources: [], templates: [] };
  const resources = await conn.use('resources/list', (client, timeout) =>
    allPages(async (cursor) => {
      const r = await client.listResources(cursor ? { cursor } : undefined, { timeout });
      return { items: r.resources, nextCursor: r.nextCursor };
    }),
  );
  const templates = await conn
    .use('resources/templates/list', (client, timeout) =>
      allPages(async (cursor) => {
        const r = await client.listResourceTemplates(cursor ? { cursor } : undefined, { timeout });
        return { items: r.resourceTemplates, nextCursor: r.nextCursor };
      }),
    )
    .catch(() => []);
  return {
    resources: resources.map((r) => ({
      uri: r.uri,
      name: r.name,
      ...optional('description', r.description),
      ...optional('mimeType', r.mimeType),
    })),
    templates: templates.map((t) => ({
      uriTemplate: t.uriTemplate,
      name: t.name,
      ...optional('description', t.description),
    })),
  };
}

export async function listPrompts(manager: McpManager, server: string): Promise<McpPromptInfo[]> {
  const conn = manager.connection(server);
  await conn.connect();
  if (!conn.capabilities?.prompts) return [];
  const prompts = await conn.use('prompts/list', (client, timeout) =>
    allPages(async (cursor) => {
      const r = await client.listPrompts(cursor ? { cursor } : undefined, { timeout });
      return { items: r.prompts, nextCursor: r.nextCursor };
    }),
  );
  return prompts.map((p) => ({
    name: p.name,
    ...optional('description', p.description),
    arguments: (p.arguments ?? []).map((a) => ({
      name: a.name,
      ...optional('description', a.description),
      required: a.required === true,
    })),
  }));
}

/** One part of a resource read or prompt: text as it is, binary content described. */
export interface McpContentText {
  text: string;
  /** Inline images (base64), for a tool result. */
  images: Array<{ mediaType: string; data: string }>;
}

export async function readResource(
  manager: McpManager,
  server: string,
  uri: string,
): Promise<McpContentText> {
  const r = await manager
    .connection(server)
    .use('resources/read', (client, timeout) => client.readResource({ uri }, { timeout }));
  const texts: string[] = [];
  const images: McpContentText['images'] = [];
  for (const c of r.contents) {
    if ('text' in c && typeof c.text === 'string') texts.push(c.text);
    else if ('blob' in c && typeof c.blob === 'string') {
      const type = c.mimeType ?? 'application/octet-stream';
      if (type.startsWith('image/')) images.push({ mediaType: type, data: c.blob });
      texts.push(`[${type} content of ${c.uri}, ${Math.floor((c.blob.length * 3) / 4)} bytes]`);
    }
  }
  return { text: texts.join('\n\n'), images };
}

/** A prompt's messages, each as `role: text` (non-text content described). */
export async function getPrompt(
  manager: McpManager,
  server: string,
  name: string,
  args: Record<string, string>,
): Promise<{ description?: string; messages: Array<{ role: string; text: string }> }> {
  const r = await manager
    .connection(server)
    .use('prompts/get', (client, timeout) => client.getPrompt({ name, arguments: args }, { timeout }));
  const messages = r.messages.map((m) => {
    const c = m.content as { type: string; text?: string; resource?: { uri: string; text?: string } };
    const text =
      c.type === 'text'
        ? (c.text ?? '')
        : c.type === 'resource' && c.resource
          ? (c.resource.text ?? `[resource ${c.resource.uri}]`)
          : `[${c.type} content]`;
    return { role: m.role, text };
  });
  return { ...optional('description', r.description), messages };
}

function transportOf(config: McpServerConfig | undefined): 'stdio' | 'http' {
  return config && isStdioServer(config) ? 'stdio' : 'http';
}

/**
 * Every configured server with what it offers. `connect`: start servers that are not
 * running yet (their resources and prompts are only known then); otherwise a server
 * not started shows its cached tools only.
 */
export async function overview(
  manager: McpManager,
  opts: { connect: boolean },
): Promise<McpServerOverview[]> {
  return Promise.all(
    manager.allServers().map(async ([name, config]): Promise<McpServerOverview> => {
      const base = { name, transport: transportOf(config), resources: [], templates: [], prompts: [] };
      if (config.disabled) return { ...base, status: 'disabled', tools: [] };
      const conn = manager.connection(name);
      if (!opts.connect && !conn.connected) {
        const status = conn.status === 'idle' ? 'not started' : conn.status;
        return { ...base, status, tools: manager.toolNames(name) };
      }
      try {
        const [{ resources, templates }, prompts] = await Promise.all([
          listResources(manager, name),
          listPrompts(manager, name),
        ]);
        return {
          ...base,
          status: 'connected',
          tools: manager.toolNames(name),
          resources,
          templates,
          prompts,
        };
      } catch (error) {
        return {
          ...base,
          status: 'error',
          error: error instanceof Error ? error.message : String(error),
          tools: manager.toolNames(name),
        };
      }
    }),
  );
}

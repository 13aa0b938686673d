/** The OpenAPI 3.1 document, generated from the route book's zod schemas, and the `/docs` page. */
import * as z from 'zod';
import { type AppContext, doc, type RouteDoc } from './routes.js';

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'param', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        param: { type: ['string', 'null'] },
        code: { type: ['string', 'null'] },
      },
    },
  },
} as const;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

function operation(route: RouteDoc): Record<string, unknown> {
  const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (route.query) {
    const q = jsonSchema(route.query) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties ?? {})) {
      params.push({
        name,
        in: 'query',
        required: q.required?.includes(name) ?? false,
        schema: schema as { type: string },
      });
    }
  }
  for (const name of route.headers ?? []) {
    params.push({ name, in: 'header', required: true, schema: { type: 'string' } });
  }
  const status = String(route.status ?? 200);
  const op: Record<string, unknown> = {
    summary: route.summary,
    tags: [route.tag],
    operationId: `${route.method}${route.path.replace(/[/:{}]+(\w)?/g, (_m, ch: string | undefined) => (ch ? ch.toUpperCase() : ''))}`,
    parameters: params,
    responses: {
      [status]: {
        description: 'OK',
        content: { [route.produces ?? 'application/json']: { schema: {} } },
      },
      default: {
        description: 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  };
  if (route.body) {
    op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(route.body) } } };
  }
  return op;
}

export function openapiDocument(docs: readonly RouteDoc[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of docs) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tea Agent API',
      version,
      description:
        'OpenAI-compatible chat plus sessions, memory, tools, search, config, export and workflows.',
    },
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
    security: [{ bearer: [] }, {}],
  };
}

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tea API</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}
h2{margin-top:1.6em;border-bottom:1px solid #ddd}.op{margin:.4em 0;padding:.5em;border:1px solid #e4e4e4;border-radius:6px}
.m{display:inline-block;min-width:4.5em;font-weight:600;text-transform:uppercase}.get{color:#1565c0}.post{color:#2e7d32}
.put,.patch{color:#ef6c00}.delete{color:#c62828}code{font-family:ui-monospace,monospace}
details pre{background:#f6f6f6;padding:.5em;overflow:auto}
</style></head><body>
<h1>Tea Agent API</h1><p>Generated from <a href="openapi.json">/openapi.json</a>.</p><div id="ops">Loading…</div>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
const token = new URLSearchParams(location.search).get('token') || localStorage.getItem('tea-token');
fetch('openapi.json', token ? { headers: { authorization: 'Bearer ' + token } } : {})
  .then((r) => r.json())
  .then((spec) => {
    const byTag = {};
    for (const [path, ops] of Object.entries(spec.paths)) for (const [m, op] of Object.entries(ops))
      (byTag[op.tags[0]] ||= []).push({ path, m, op });
    let html = '';
    for (const [tag, list] of Object.entries(byTag)) {
      html += '<h2>' + esc(tag) + '</h2>';
      for (const { path, m, op } of list) {
        const body = op.requestBody ? '<details><summary>request body</summary><pre>' +
          esc(JSON.stringify(op.requestBody.content['application/json'].schema, null, 2)) + '</pre></details>' : '';
        html += '<div class="op"><span class="m ' + m + '">' + m + '</span> <code>' + esc(path) + '</code> — ' + esc(op.summary) + body + '</div>';
      }
    }
    document.getElementById('ops').innerHTML = html;
  })
  .catch((e) => { document.getElementById('ops').textContent = 'Could not load openapi.json: ' + e; });
</script></body></html>
`;

export function openapiRoutes(ctx: AppContext): void {
  const { app, deps, docs } = ctx;
  doc(ctx, { method: 'get', path: '/openapi.json', summary: 'This document', tag: 'meta' });
  doc(ctx, {
    method: 'get',
    path: '/docs',
    summary: 'A page listing the operations',
    tag: 'meta',
    produces: 'text/html',
  });
  let cached: Record<string, unknown> | undefined;
  app.get('/openapi.json', (c) => {
    cached ??= openapiDocument(docs, deps.version);
    return c.json(cached);
  });
  app.get('/docs', (c) => c.html(DOCS_PAGE));
}

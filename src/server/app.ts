/** `createApp(deps)`: the Hono app with every route, middleware and error handler. */

import { join } from 'node:path';
import { Hono } from 'hono';
import { CONFIG_FILE } from '../config/files.js';
import { randomUUID } from '../util/random-id.js';
import { bearerAuth } from './auth.js';
import { configRoutes } from './config.js';
import { corsFor } from './cors.js';
import { apiError, notFound, onError } from './errors.js';
import { exportRoutes } from './export.js';
import { hostGuard, jsonBodies, originGuard } from './guard.js';
import { HostPolicy } from './hosts.js';
import { journalRoutes } from './journal.js';
import { rateLimit, sizeLimit } from './limits.js';
import { LiveSessions } from './live.js';
import { mcpRoutes } from './mcp.js';
import { memoryRoutes } from './memory.js';
import { modeRoutes } from './modes.js';
import { openaiRoutes } from './openai.js';
import { openapiRoutes } from './openapi.js';
import { promptRoutes } from './prompts.js';
import { responsesRoutes } from './responses.js';
import type { AppContext, RouteDoc, ServerStats } from './routes.js';
import { searchRoutes } from './search.js';
import { sessionRoutes } from './sessions.js';
import { skillRoutes } from './skills.js';
import { eventRoutes } from './sse.js';
import { isApiPath, staticRoutes } from './static.js';
import { toolRoutes } from './tools.js';
import { DEFAULT_BODY_LIMIT, type ServerDeps } from './types.js';
import { workflowEventRoutes } from './workflow-events.js';
import { WorkflowRuns } from './workflow-runs.js';
import { workflowRoutes } from './workflows.js';

export interface TeaApp {
  app: Hono;
  /** The Host values answered; `startServer` binds it to the listening address. */
  hosts: HostPolicy;
  live: LiveSessions;
  runs: WorkflowRuns;
  docs: RouteDoc[];
  stats: ServerStats;
}

/** Builds the app; `createApp(deps).app.fetch` is what the HTTP server runs. */
export function createTeaApp(deps: ServerDeps): TeaApp {
  const app = new Hono();
  const live = new LiveSessions(deps);
  const runs = new WorkflowRuns(deps);
  const docs: RouteDoc[] = [];
  const hosts = new HostPolicy(deps.allowedHosts, join(deps.config.home, CONFIG_FILE));
  app.onError(onError);
  app.notFound(notFound);

  // First of all: a request under a foreign name (DNS rebinding) gets nothing, not even the UI.
  app.use('*', hostGuard(hosts));
  if (deps.cors && deps.cors.length > 0) app.use('*', corsFor(deps.cors));
  // Every answer names its request (the OpenAI SDKs keep it as `_request_id` for reports).
  app.use('*', async (c, next) => {
    c.header('x-request-id', `req_${randomUUID().replace(/-/g, '')}`);
    return next();
  });
  app.use('*', originGuard(deps.cors ?? []));
  if (deps.rateLimit !== false) app.use('*', rateLimit(deps.rateLimit ?? { perMinute: 600 }));
  if (deps.token) {
    const guard = bearerAuth(deps.token);
    // The UI's static files and the docs page carry no data; the browser loads them before it has the token.
    app.use('*', (c, next) => (isApiPath(c.req.path) && c.req.path !== '/docs' ? guard(c, next) : next()));
  }
  app.use('*', sizeLimit(deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT));
  app.use('*', jsonBodies());

  const stats: ServerStats = { chatsRunning: 0, chatsTotal: 0 };
  const ctx: AppContext = { app, deps, live, runs, docs, stats };
  ctx.docs.push({ method: 'get', path: '/health', summary: 'Liveness', tag: 'meta' });
  app.get('/health', (c) => c.json({ status: 'ok', version: deps.version }));
  openaiRoutes(ctx);
  responsesRoutes(ctx);
  sessionRoutes(ctx);
  modeRoutes(ctx);
  journalRoutes(ctx);
  eventRoutes(ctx);
  memoryRoutes(ctx);
  toolRoutes(ctx);
  skillRoutes(ctx);
  mcpRoutes(ctx);
  searchRoutes(ctx);
  configRoutes(ctx);
  exportRoutes(ctx);
  workflowRoutes(ctx);
  workflowEventRoutes(ctx);
  promptRoutes(ctx);
  openapiRoutes(ctx);
  if (deps.webDir) staticRoutes(app, deps.webDir);
  app.get('/', (c) =>
    c.html(
      '<!doctype html><meta charset="utf-8"><title>Tea</title><p>Tea Agent is running. The web UI is not built; see the <a href="/docs">API docs</a>.</p>',
    ),
  );
  app.all('/v1/*', (c) => {
    throw methodNotAllowed(c.req.method, c.req.path, docs);
  });
  return { app, hosts, live, runs, docs, stats };
}

/** The Hono app alone. */
export function createApp(deps: ServerDeps): Hono {
  return createTeaApp(deps).app;
}

/** 405 when the path exists with other methods, else 404. */
function methodNotAllowed(method: string, path: string, docs: RouteDoc[]) {
  const matches = docs.filter((d) => new RegExp(`^${d.path.replace(/:\w+/g, '[^/]+')}$`).test(path));
  if (matches.length === 0)
    return apiError(404, `no route for ${method} ${path}`, { code: 'route_not_found' });
  const allowed = [...new Set(matches.map((d) => d.method.toUpperCase()))].join(', ');
  return apiError(405, `method ${method} is not allowed on ${path}; use ${allowed}`, {
    code: 'method_not_allowed',
    headers: { allow: allowed },
  });
}

/**
 * The route book: every route registers a short description with its zod schemas,
 * so the OpenAPI document is generated from the same schemas that validate requests.
 */
import type { Hono } from 'hono';
import type * as z from 'zod';
import type { LiveSessions } from './live.js';
import type { ServerDeps } from './types.js';
import type { WorkflowRuns } from './workflow-runs.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteDoc {
  method: HttpMethod;
  /** Hono form: `/v1/sessions/:id`. */
  path: string;
  summary: string;
  tag: string;
  body?: z.ZodType;
  query?: z.ZodType;
  /** The success status (default 200). */
  status?: number;
  /** Request headers the route requires (lower case). */
  headers?: string[];
  /** Response content type when not JSON (`text/event-stream`, `application/pdf`, …). */
  produces?: string;
}

/** Counters a load test or a health probe can read. */
export interface ServerStats {
  /** Chat completions whose turn is running now. */
  chatsRunning: number;
  chatsTotal: number;
}

/** What every route module receives. */
export interface AppContext {
  app: Hono;
  deps: ServerDeps;
  live: LiveSessions;
  /** The workflow runs this server executes. */
  runs: WorkflowRuns;
  docs: RouteDoc[];
  stats: ServerStats;
}

/** Records a route for /openapi.json. */
export function doc(ctx: AppContext, route: RouteDoc): void {
  ctx.docs.push(route);
}

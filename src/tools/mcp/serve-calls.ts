/**
 * `tools/call` for `tea mcp serve`: one call runs through `runTool` with the request's
 * AbortSignal (a client's notifications/cancelled stops it: a bash child is killed), and
 * while it runs the client hears about it as it asked:
 *
 * - progress (`_meta.progressToken` in the request): the tool's own reports
 *   (`ctx.progress`, user tools have it), else a heartbeat every `heartbeatMs` saying how
 *   long the call has run, so a long call is never silent;
 * - logging (once the client sent `logging/setLevel`): the tool's log lines (`ctx.log`)
 *   and a line when a call fails, at or above the level it chose.
 *
 * Both go out as notifications related to the request (on its own response stream over
 * streamable HTTP).
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { PermissionPolicy } from '../permissions.js';
import type { ToolRegistry } from '../registry.js';
import { type Authorization, runTool, type ToolRunResult } from '../run.js';
import {
  type ElicitAnswer,
  type ElicitRequest,
  type SampleAnswer,
  type SampleRequest,
  TOOL_LOG_LEVELS,
  type Tool,
  type ToolLogLevel,
  type ToolProgress,
} from '../types.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface CallSetup {
  served: ToolRegistry;
  cwd: string;
  allowedRoots?: string[];
  policy: PermissionPolicy;
  authorize: (tool: Tool, args: unknown) => Promise<Authorization>;
  maxOutputChars?: number;
  outputDir?: string;
  /** How often a call without its own progress reports says it is still running (default 1 000 ms). */
  heartbeatMs?: number;
  /** What the connected client offers (elicitation, sampling), once it initialized. */
  client?: () => { elicitation?: object; sampling?: object } | undefined;
}

type Types = typeof import('@modelcontextprotocol/sdk/types.js');
type FormSchema = import('@modelcontextprotocol/sdk/types.js').ElicitRequestFormParams['requestedSchema'];

/** A tool's form for the user, as the client's elicitation/create. */
async function elicitVia(extra: Extra, t: Types, r: ElicitRequest): Promise<ElicitAnswer> {
  const answer = await extra.sendRequest(
    {
      method: 'elicitation/create',
      params: { message: r.message, requestedSchema: r.schema as FormSchema },
    },
    t.ElicitResultSchema,
  );
  return {
    action: answer.action,
    ...(answer.content ? { content: answer.content as Record<string, unknown> } : {}),
  };
}

/** A tool's question for the model, as the client's sampling/createMessage. */
async function sampleVia(extra: Extra, t: Types, r: SampleRequest): Promise<SampleAnswer> {
  const answer = await extra.sendRequest(
    {
      method: 'sampling/createMessage',
      params: {
        messages: [{ role: 'user', content: { type: 'text', text: r.prompt } }],
        maxTokens: r.maxTokens,
        ...(r.systemPrompt ? { systemPrompt: r.systemPrompt } : {}),
      },
    },
    t.CreateMessageResultSchema,
  );
  const parts = Array.isArray(answer.content) ? answer.content : [answer.content];
  const text = parts.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n');
  return { text, model: answer.model };
}

/** The level a client chose with logging/setLevel; nothing is sent before it chooses. */
export class LogLevel {
  private level: ToolLogLevel | undefined;
  set(level: ToolLogLevel): void {
    this.level = level;
  }
  /** Whether a line at `level` goes to the client. */
  wants(level: ToolLogLevel): boolean {
    return this.level !== undefined && TOOL_LOG_LEVELS.indexOf(level) >= TOOL_LOG_LEVELS.indexOf(this.level);
  }
}

/** Sends progress for one request: the tool's own reports win over the heartbeat. */
function progressFor(extra: Extra, name: string, heartbeatMs: number) {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { report: undefined, stop: () => {} };
  let last = -Infinity;
  let own = false;
  const send = (p: ToolProgress): void => {
    if (extra.signal.aborted || p.progress <= last) return;
    last = p.progress;
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: p.progress,
          ...(p.total !== undefined ? { total: p.total } : {}),
          ...(p.message !== undefined ? { message: p.message } : {}),
        },
      })
      .catch(() => {});
  };
  const started = Date.now();
  let beats = 0;
  const timer = setInterval(() => {
    if (own) return;
    beats += 1;
    const seconds = Math.round((Date.now() - started) / 1000);
    send({ progress: beats, message: `${name} is running (${seconds} s)` });
  }, heartbeatMs);
  timer.unref();
  return {
    report: (p: ToolProgress) => {
      own = true;
      send(p);
    },
    stop: () => clearInterval(timer),
  };
}

/** A result's MCP content: its text (left out when empty and other parts follow), then its images, audio clips and embedded resources. */
export function callContent(result: Pick<ToolRunResult, 'output' | 'images' | 'audio' | 'resources'>) {
  const images = (result.images ?? []).flatMap((image) =>
    image.data ? [{ type: 'image' as const, data: image.data, mimeType: image.mediaType }] : [],
  );
  const audio = (result.audio ?? []).map((a) => ({
    type: 'audio' as const,
    data: a.data,
    mimeType: a.mediaType,
  }));
  const resources = (result.resources ?? []).map(({ type: _, ...resource }) => ({
    type: 'resource' as const,
    resource,
  }));
  const rest = [...images, ...audio, ...resources];
  // An empty text beside other parts says nothing.
  return result.output === '' && rest.length > 0
    ? rest
    : [{ type: 'text' as const, text: result.output }, ...rest];
}

/** The handler of `tools/call`. */
export function callHandler(setup: CallSetup, logLevel: LogLevel, t: Types) {
  return async (params: { name: string; arguments?: Record<string, unknown> }, extra: Extra) => {
    const log = (level: ToolLogLevel, message: string): void => {
      if (!logLevel.wants(level) || extra.signal.aborted) return;
      void extra
        .sendNotification({
          method: 'notifications/message',
          params: { level, logger: params.name, data: message },
        })
        .catch(() => {});
    };
    const progress = progressFor(extra, params.name, setup.heartbeatMs ?? 1000);
    const client = setup.client?.();
    try {
      const result = await runTool(
        setup.served,
        { type: 'tool-call', id: randomUUID(), name: params.name, args: params.arguments ?? {} },
        {
          cwd: setup.cwd,
          ...(setup.allowedRoots ? { allowedRoots: setup.allowedRoots } : {}),
          sessionId: extra.sessionId ? `mcp:${extra.sessionId}` : 'mcp',
          callId: String(extra.requestId),
          signal: extra.signal,
          ...(setup.outputDir ? { outputDir: setup.outputDir } : {}),
          permissions: setup.policy,
          ...(progress.report ? { progress: progress.report } : {}),
          log,
          ...(client?.elicitation ? { elicit: (r: ElicitRequest) => elicitVia(extra, t, r) } : {}),
          ...(client?.sampling ? { sample: (r: SampleRequest) => sampleVia(extra, t, r) } : {}),
        },
        {
          authorize: (tool, args) => setup.authorize(tool, args),
          ...(setup.maxOutputChars ? { maxOutputChars: setup.maxOutputChars } : {}),
        },
      );
      if (result.isError) log('error', `${params.name}: ${result.output.split('\n')[0]}`);
      return { content: callContent(result), isError: result.isError };
    } finally {
      progress.stop();
    }
  };
}

/** Registers `tools/call` and `logging/setLevel` on `server`. */
export async function registerCalls(server: Server, setup: CallSetup): Promise<void> {
  const t = await import('@modelcontextprotocol/sdk/types.js');
  const { CallToolRequestSchema, SetLevelRequestSchema } = t;
  const level = new LogLevel();
  server.setRequestHandler(SetLevelRequestSchema, async ({ params }) => {
    level.set(params.level);
    return {};
  });
  const handle = callHandler({ ...setup, client: () => server.getClientCapabilities() }, level, t);
  server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra) => handle(params, extra));
}

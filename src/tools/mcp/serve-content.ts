/**
 * Resources, resource templates, prompts and completions for `tea mcp serve`. This
 * module speaks the protocol; what there is to offer comes from the runtime as a
 * `ServedContent` (workspace files, session transcripts, memories, user commands —
 * see runtime/mcp-serve-content.ts). A provider's `McpContentError` becomes a JSON-RPC
 * error with its message (e.g. "outside the workspace"), never a crash.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

export interface ServedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

export interface ServedTemplate {
  uriTemplate: string;
  name: string;
  description: string;
  mimeType?: string;
}

export type ServedContents = { uri: string; mimeType?: string } & ({ text: string } | { blob: string });

export interface ServedPromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export interface ServedPrompt {
  name: string;
  description: string;
  arguments: ServedPromptArgument[];
}

export type PromptContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'resource'; resource: ServedContents };

export type ServedPromptResult = {
  description?: string;
  messages: Array<{ role: 'user' | 'assistant'; content: PromptContent }>;
};

/** What the runtime offers besides tools. Each part is optional. */
export interface ServedContent {
  resources?: {
    /** One page; `cursor` is what the previous page returned as `nextCursor`. */
    list(cursor: string | undefined): Promise<{ resources: ServedResource[]; nextCursor?: string }>;
    templates(): ServedTemplate[] | Promise<ServedTemplate[]>;
    read(uri: string): Promise<ServedContents[]>;
    /** Values for a template variable that start with `prefix`. */
    complete?(uriTemplate: string, variable: string, prefix: string): Promise<string[]>;
    /** Calls `changed` when the resource changes, until the returned function is called (resources/subscribe). */
    watch?(uri: string, changed: () => void): Promise<() => void>;
    /** Calls `changed` when the list may have changed, until the returned function is called. */
    onListChanged?(changed: () => void): () => void;
  };
  prompts?: {
    list(): Promise<ServedPrompt[]>;
    get(name: string, args: Record<string, string>): Promise<ServedPromptResult>;
  };
}

/** A provider's refusal or not-found, with the message the client should see. */
export class McpContentError extends Error {
  constructor(
    message: string,
    /** `not_found`: a resource that is not there (-32002); `invalid`: invalid params (-32602), also an unknown prompt. */
    readonly kind: 'not_found' | 'invalid' = 'invalid',
  ) {
    super(message);
    this.name = 'McpContentError';
  }
}

/** The capabilities `content` adds to the server's. */
export function contentCapabilities(content: ServedContent | undefined): Record<string, object> {
  return {
    ...(content?.resources
      ? {
          resources: {
            ...(content.resources.watch ? { subscribe: true } : {}),
            ...(content.resources.onListChanged ? { listChanged: true } : {}),
          },
        }
      : {}),
    ...(content?.prompts ? { prompts: {} } : {}),
    ...(content?.resources || content?.prompts ? { completions: {} } : {}),
  };
}

const COMPLETION_LIMIT = 100;
/** Subscriptions one client may hold at once. */
export const MAX_SUBSCRIPTIONS = 256;

type Types = typeof import('@modelcontextprotocol/sdk/types.js');

/** resources/subscribe and unsubscribe: notifications/resources/updated while subscribed; all end with the session. */
function registerSubscriptions(
  server: Server,
  watch: (uri: string, changed: () => void) => Promise<() => void>,
  t: Types,
  wrap: <T>(run: () => Promise<T>) => Promise<T>,
): void {
  const live = new Map<string, () => void>();
  const closed = server.onclose;
  server.onclose = () => {
    for (const stop of live.values()) stop();
    live.clear();
    closed?.();
  };
  server.setRequestHandler(t.SubscribeRequestSchema, ({ params }) =>
    wrap(async () => {
      if (live.has(params.uri)) return {};
      if (live.size >= MAX_SUBSCRIPTIONS)
        throw new McpContentError(
          `at most ${MAX_SUBSCRIPTIONS} subscriptions at once; unsubscribe from some first`,
        );
      const stop = await watch(params.uri, () => {
        void server.sendResourceUpdated({ uri: params.uri }).catch(() => {});
      });
      live.set(params.uri, stop);
      return {};
    }),
  );
  server.setRequestHandler(t.UnsubscribeRequestSchema, async ({ params }) => {
    live.get(params.uri)?.();
    live.delete(params.uri);
    return {};
  });
}

/** Registers the handlers of what `content` offers on `server`. */
export async function registerContent(server: Server, content: ServedContent | undefined): Promise<void> {
  if (!content?.resources && !content?.prompts) return;
  const t = await import('@modelcontextprotocol/sdk/types.js');
  const wrap = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof McpContentError) {
        const code = error.kind === 'not_found' ? -32002 : t.ErrorCode.InvalidParams;
        throw new t.McpError(code, error.message);
      }
      throw error;
    }
  };
  const { resources, prompts } = content;
  if (resources) {
    server.setRequestHandler(t.ListResourcesRequestSchema, ({ params }) =>
      wrap(() => resources.list(params?.cursor)),
    );
    server.setRequestHandler(t.ListResourceTemplatesRequestSchema, () =>
      wrap(async () => ({ resourceTemplates: await resources.templates() })),
    );
    server.setRequestHandler(t.ReadResourceRequestSchema, ({ params }) =>
      wrap(async () => ({ contents: await resources.read(params.uri) })),
    );
    const watch = resources.watch?.bind(resources);
    if (watch) registerSubscriptions(server, watch, t, wrap);
    if (resources.onListChanged) {
      // Told once the client is ready; stops with the session.
      const stop = resources.onListChanged(() => {
        if (server.getClientCapabilities()) void server.sendResourceListChanged().catch(() => {});
      });
      const closed = server.onclose;
      server.onclose = () => {
        stop();
        closed?.();
      };
    }
  }
  if (prompts) {
    server.setRequestHandler(t.ListPromptsRequestSchema, async () => ({ prompts: await prompts.list() }));
    server.setRequestHandler(t.GetPromptRequestSchema, ({ params }) =>
      wrap(() => prompts.get(params.name, params.arguments ?? {})),
    );
  }
  server.setRequestHandler(t.CompleteRequestSchema, ({ params }) =>
    wrap(async () => {
      const { ref, argument } = params;
      let values: string[] = [];
      if (ref.type === 'ref/resource' && resources?.complete) {
        values = await resources.complete(ref.uri, argument.name, argument.value);
      } else if (ref.type === 'ref/prompt' && prompts) {
        // A user command's arguments are free text: nothing to suggest, but the prompt must exist.
        const known = await prompts.list();
        const prompt = known.find((p) => p.name === ref.name);
        if (!prompt) throw new McpContentError(`no prompt named "${ref.name}"`);
      }
      return {
        completion: {
          values: values.slice(0, COMPLETION_LIMIT),
          total: values.length,
          hasMore: values.length > COMPLETION_LIMIT,
        },
      };
    }),
  );
}

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
    templates(): ServedTemplate[];
    read(uri: string): Promise<ServedContents[]>;
    /** Values for a template variable that start with `prefix`. */
    complete?(uriTemplate: string, variable: string, prefix: string): Promise<string[]>;
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
    readonly kind: 'not_found' | 'invalid' = 'invalid',
  ) {
    super(message);
    this.name = 'McpContentError';
  }
}

/** The capabilities `content` adds to the server's. */
export function contentCapabilities(content: ServedContent | undefined): Record<string, object> {
  return {
    ...(content?.resources ? { resources: {} } : {}),
    ...(content?.prompts ? { prompts: {} } : {}),
    ...(content?.resources || content?.prompts ? { completions: {} } : {}),
  };
}

const COMPLETION_LIMIT = 100;

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
    server.setRequestHandler(t.ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: resources.templates(),
    }));
    server.setRequestHandler(t.ReadResourceRequestSchema, ({ params }) =>
      wrap(async () => ({ contents: await resources.read(params.uri) })),
    );
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
        if (!prompt) throw new McpContentError(`no prompt named "${ref.name}"`, 'not_found');
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

/**
 * What Tea's MCP client offers servers besides calling their tools: the session's
 * workspace as its one root (`roots/list`), sampling answered by the session's model
 * (sampling.ts), elicitation put to the user (elicitation.ts), and a fresh tool list
 * when the server says it changed (`notifications/tools/list_changed`).
 *
 * A server sends sampling and elicitation requests while it serves a tool call; over
 * stdio nothing says which one, so they go to the session of the latest call still
 * running on that connection (`callers`).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from '../types.js';
import { answerElicitation, type Unattended } from './elicitation.js';
import { answerSampling, type SamplingBudget } from './sampling.js';

/** What Tea's client offers; `roots` only to servers that take them. */
export function clientCapabilities(roots: boolean): ClientCapabilities {
  return {
    ...(roots ? { roots: {} } : {}),
    sampling: {},
    elicitation: { form: { applyDefaults: true }, url: {} },
  };
}

export interface ClientHandlerOptions {
  server: string;
  /** The roots: the workspace, then the directories added to it; none: roots are not offered. */
  roots?: readonly string[];
  budget: SamplingBudget;
  /** Elicitation where nobody can answer (config `mcp_elicitation.unattended`). */
  unattended?: Unattended;
  /** The tool call the server is serving now (the latest still running), if any. */
  caller(): ToolContext | undefined;
  /** The server's tool list changed: list it again. */
  onToolsChanged(): void;
}

/** The roots Tea announces: the workspace and any added directories, as file:// URIs. */
export function rootList(dirs: readonly string[]): Array<{ uri: string; name: string }> {
  return [...new Set(dirs)].map((dir, i) => ({
    uri: pathToFileURL(dir).href,
    name: i === 0 ? 'workspace' : path.basename(dir) || dir,
  }));
}

/** Installs Tea's answers on a client before it connects. */
export async function installClientHandlers(client: Client, opts: ClientHandlerOptions): Promise<void> {
  const {
    ListRootsRequestSchema,
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    ToolListChangedNotificationSchema,
  } = await import('@modelcontextprotocol/sdk/types.js');
  const roots = opts.roots;
  if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: rootList(roots) }));
  client.setRequestHandler(CreateMessageRequestSchema, (request) =>
    answerSampling(opts.server, request.params, opts.caller(), opts.budget),
  );
  client.setRequestHandler(ElicitRequestSchema, (request) =>
    answerElicitation(opts.server, request.params, opts.caller(), opts.unattended),
  );
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => opts.onToolsChanged());
}

/**
 * What `tea mcp serve` offers besides tools (the protocol side is
 * tools/mcp/serve-content.ts):
 *
 * - resources: the workspace's files (`file://` URIs, under the workspace only: a path
 *   that leaves it — `..`, a symbolic link out, an encoded slash, another absolute
 *   path — is refused, and the permission rules' `read_file` denials apply), this
 *   workspace's session transcripts as Markdown (`tea://sessions/{id}`), and the
 *   memories this workspace reads (`tea://memories`, `tea://memories/{id}`), and the
 *   user's own resources and templates (mcp-user-resources.ts);
 * - prompts: the user's commands (`.tea/commands`, `TEA_HOME/commands`), read afresh
 *   on each request, their arguments named by `argument-hint` (see mcp-serve-prompts.ts).
 *
 * The database opens on the first request that needs it.
 */
import path from 'node:path';
import type { TeaConfig } from '../config/types.js';
import type { Memory } from '../memory/types.js';
import {
  McpContentError,
  type ServedContent,
  type ServedContents,
  type ServedResource,
} from '../tools/mcp/serve-content.js';
import type { PermissionView } from '../tools/types.js';
import { listWorkspaceFiles, readWorkspaceFile, watchWorkspaceFile } from './mcp-serve-files.js';
import { servedPrompts } from './mcp-serve-prompts.js';
import { userResources } from './mcp-user-resources.js';
import { transcriptMarkdown } from './session-markdown.js';

const PAGE = 100;
const SESSIONS_LISTED = 200;

interface Data {
  sessions: import('./sessions.js').SessionsService;
  memory: import('../memory/service.js').MemoryService;
  close(): void;
}

async function openData(config: TeaConfig): Promise<Data> {
  const [{ Store }, { defaultDbPath }, { MemoryService }, { SessionsService }, { embedderFor }] =
    await Promise.all([
      import('../store/index.js'),
      import('../store/paths.js'),
      import('../memory/service.js'),
      import('./sessions.js'),
      import('./embedder.js'),
    ]);
  const store = Store.open(defaultDbPath(config.home), { backup: {} });
  const sessions = new SessionsService({
    store: () => store,
    agentFor: () => {
      throw new Error('tea mcp serve reads sessions only');
    },
    hasProfile: () => false,
  });
  const memory = new MemoryService({ db: store.db, embedder: embedderFor(config) });
  return { sessions, memory, close: () => store.close() };
}

function memoryMarkdown(m: Memory): string {
  return [
    `# Memory ${m.id}`,
    '',
    m.content,
    '',
    `- Category: ${m.category}`,
    `- Priority: ${m.priority}, importance ${m.importance}`,
    `- Scope: ${m.scope}`,
    ...(m.tags.length ? [`- Tags: ${m.tags.join(', ')}`] : []),
    `- Created: ${new Date(m.createdAt).toISOString()}`,
    '',
  ].join('\n');
}

function cursorOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const n = /^o(\d{1,9})$/.test(cursor) ? Number(cursor.slice(1)) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new McpContentError(`invalid cursor ${JSON.stringify(cursor)}`);
  return n;
}

export interface ContentSetup {
  config: TeaConfig;
  /** The served workspace. */
  cwd: string;
  /** Decides whether a file may be read (as `read_file` would be). */
  permissions: PermissionView;
  warn?: (message: string) => void;
}

export interface RuntimeContent extends ServedContent {
  close(): void;
}

/** Resources and prompts of the workspace `cwd`. */
export function runtimeContent(setup: ContentSetup): RuntimeContent {
  const { config, cwd } = setup;
  const scopes = [`project:${cwd}`, 'user', 'global'];
  let data: Promise<Data> | undefined;
  const open = () => {
    data ??= openData(config);
    return data;
  };
  const ownSession = async (id: string) => {
    const { sessions } = await open();
    const row = sessions.get(id);
    // Another workspace's session is as unknown as a missing one.
    if (!row || row.cwd !== cwd) throw new McpContentError(`no session ${id} in this workspace`, 'not_found');
    return { row, messages: sessions.messages(id) };
  };
  const ownMemory = async (id: string) => {
    const { memory } = await open();
    const m = /^\d{1,12}$/.test(id) ? memory.get(Number(id)) : undefined;
    if (!m || m.deletedAt !== null || !scopes.includes(m.scope))
      throw new McpContentError(`no memory ${id} for this workspace`, 'not_found');
    return m;
  };
  const activeMemories = async () => (await open()).memory.list({ scopes, limit: 500 });
  const trusted = config.project?.state === 'trusted' ? config.project.dir : undefined;
  const user = userResources({
    cwd,
    home: config.home,
    ...(trusted ? { trustedProject: trusted } : {}),
    ...(setup.warn ? { warn: setup.warn } : {}),
  });

  const everything = async (): Promise<ServedResource[]> => {
    const { sessions } = await open();
    const rows = sessions.list({ cwd, limit: SESSIONS_LISTED });
    return [
      {
        uri: 'tea://memories',
        name: 'memories',
        title: 'Memories',
        description: 'What Tea remembers for this workspace (project, user and global memories), as Markdown',
        mimeType: 'text/markdown',
      },
      ...rows.map((r) => ({
        uri: `tea://sessions/${r.id}`,
        name: `session-${r.id.slice(0, 8)}`,
        title: r.title ?? 'Untitled session',
        description: `Transcript of the session "${r.title ?? 'Untitled'}" (${r.messageCount} messages), as Markdown`,
        mimeType: 'text/markdown',
      })),
      ...(await user.list()),
      ...(await listWorkspaceFiles(cwd, setup.warn)),
    ];
  };

  const readTea = async (uri: string): Promise<ServedContents[]> => {
    const m = /^tea:\/\/(sessions|memories)(?:\/([^/?#]+))?$/.exec(uri);
    if (!m) throw new McpContentError(`no resource ${uri}`, 'not_found');
    const [, kind, id] = m;
    if (kind === 'sessions') {
      if (!id) throw new McpContentError('name a session: tea://sessions/{id}', 'not_found');
      const { row, messages } = await ownSession(decodeURIComponent(id));
      return [{ uri, mimeType: 'text/markdown', text: transcriptMarkdown(row, messages) }];
    }
    if (id) return [{ uri, mimeType: 'text/markdown', text: memoryMarkdown(await ownMemory(id)) }];
    const list = await activeMemories();
    const text = list.length
      ? list.map((x) => `- [${x.id}] ${x.content.replace(/\s+/g, ' ')} (${x.category})`).join('\n')
      : 'No memories yet.';
    return [{ uri, mimeType: 'text/markdown', text: `# Memories\n\n${text}\n` }];
  };

  const resources: NonNullable<ServedContent['resources']> = {
    async list(cursor) {
      const offset = cursorOffset(cursor);
      const all = await everything();
      const page = all.slice(offset, offset + PAGE);
      return offset + PAGE < all.length
        ? { resources: page, nextCursor: `o${offset + PAGE}` }
        : { resources: page };
    },
    templates: async () => [
      ...(await user.templates()),
      {
        uriTemplate: 'tea://sessions/{id}',
        name: 'session',
        description: "A Tea session's transcript (a session of this workspace), as Markdown",
        mimeType: 'text/markdown',
      },
      {
        uriTemplate: 'tea://memories/{id}',
        name: 'memory',
        description: 'One memory by its number, as Markdown',
        mimeType: 'text/markdown',
      },
      {
        uriTemplate: `file://${cwd.split(path.sep).map(encodeURIComponent).join('/')}/{+path}`,
        name: 'workspace-file',
        description: 'A file of the workspace, by its path relative to the workspace',
      },
    ],
    async read(uri) {
      if (uri.startsWith('tea:')) return readTea(uri);
      if (uri.startsWith('file:')) return [await readWorkspaceFile(uri, cwd, setup.permissions)];
      const contents = await user.read(uri);
      if (contents) return contents;
      throw new McpContentError(
        `no resource ${uri}: Tea serves file:// (the workspace), tea:// and the user resources' URIs`,
        'not_found',
      );
    },
    async watch(uri, changed) {
      const stop = uri.startsWith('file:') ? undefined : await user.watch(uri, changed);
      if (stop) return stop;
      if (!uri.startsWith('file:'))
        throw new McpContentError(
          `subscriptions are offered for workspace files (file://) and user resources, not ${uri}`,
        );
      return watchWorkspaceFile(uri, cwd, setup.permissions, changed);
    },
    onListChanged: (changed) => user.onListChanged(changed),
    async complete(uriTemplate, variable, prefix) {
      const own = await user.complete(uriTemplate, variable, prefix);
      if (own) return own;
      if (variable !== 'id') return [];
      if (uriTemplate === 'tea://sessions/{id}') {
        const { sessions } = await open();
        return sessions
          .list({ cwd, limit: SESSIONS_LISTED })
          .map((r) => r.id)
          .filter((id) => id.startsWith(prefix));
      }
      if (uriTemplate === 'tea://memories/{id}')
        return (await activeMemories()).map((x) => String(x.id)).filter((id) => id.startsWith(prefix));
      return [];
    },
  };
  return {
    resources,
    prompts: servedPrompts({
      cwd,
      home: config.home,
      ...(setup.warn ? { warn: setup.warn } : {}),
      read: (uri) => resources.read(uri),
    }),
    close: () => {
      void data?.then((d) => d.close()).catch(() => {});
    },
  };
}

/**
 * What `tea mcp serve` offers besides tools, through the built CLI over stdio with the
 * MCP SDK's client: the workspace's files (paginated; reads refused outside the
 * workspace — the attack table), this workspace's session transcripts, its memories,
 * user commands as prompts with named arguments, completions; and progress and logging
 * notifications of a call.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryRepo } from '../../src/memory/repo.js';
import { Store } from '../../src/store/index.js';
import { defaultDbPath } from '../../src/store/paths.js';
import { type CliEnv, cliEnv, TEA_BIN } from '../support/cli.js';
import { installFixtures } from './mcp-fixtures.js';

let ctx: CliEnv;
let client: Client;
let ids: { here: string; elsewhere: string; mine: number; user: number; foreign: number };
const outside = () => path.join(ctx.home, '..', 'outside.txt');

beforeAll(async () => {
  ctx = cliEnv();
  const w = (rel: string, text: string | Buffer) => {
    mkdirSync(path.dirname(path.join(ctx.work, rel)), { recursive: true });
    writeFileSync(path.join(ctx.work, rel), text);
  };
  w('notes.txt', 'first line\n');
  w('docs/guide.md', '# Guide\n');
  w('blob.bin', Buffer.from([0, 1, 2, 255]));
  w('secret.env', 'TOKEN=1\n');
  w('.git/config', '[core]\n');
  for (let i = 0; i < 120; i++) w(`many/f${String(i).padStart(3, '0')}.txt`, `${i}\n`);
  writeFileSync(outside(), 'not yours\n');
  symlinkSync(outside(), path.join(ctx.work, 'link-out.txt'));
  w(
    '.tea/commands/review.md',
    '---\ndescription: Review an issue\nargument-hint: <issue> [branch]\n---\nReview issue $1 on branch $2.\n',
  );
  w('.tea/commands/explain.md', 'Explain $ARGUMENTS simply.\n');
  writeFileSync(
    path.join(ctx.home, 'config.yaml'),
    `permissions: ${JSON.stringify({ rules: [{ tool: 'read_file', pattern: 'secret*', action: 'deny' }] })}\n`,
  );
  await installFixtures(ctx.home, ctx.work);
  const store = Store.open(defaultDbPath(ctx.home));
  const here = store.sessions.create({ cwd: ctx.work, title: 'Fixing the parser' });
  store.messages.append(here.id, {
    turnId: 't1',
    role: 'user',
    parts: [{ type: 'text', text: 'fix the parser' }],
  });
  store.messages.append(here.id, {
    turnId: 't1',
    role: 'assistant',
    parts: [{ type: 'text', text: 'Done: parser fixed.' }],
  });
  const elsewhere = store.sessions.create({ cwd: '/somewhere/else', title: 'Private work' });
  const repo = new MemoryRepo(store.db);
  const mine = repo.add({
    content: 'The parser lives in src/parse.ts',
    category: 'fact',
    scope: `project:${ctx.work}`,
  });
  const user = repo.add({ content: 'The user prefers tabs', category: 'preference', scope: 'user' });
  const foreign = repo.add({
    content: 'Another project secret',
    category: 'fact',
    scope: 'project:/somewhere/else',
  });
  ids = { here: here.id, elsewhere: elsewhere.id, mine: mine.id, user: user.id, foreign: foreign.id };
  store.close();
  client = new Client({ name: 'tea-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [TEA_BIN, 'mcp', 'serve', '--cwd', ctx.work, '--permission-mode', 'read-only'],
      env: ctx.env as Record<string, string>,
      stderr: 'pipe',
    }),
  );
  // Every message as it came off the wire, in order: the SDK client hands notifications to
  // their handlers a microtask late, so a progress report that arrives in the same chunk as
  // the answer can miss its (already removed) handler. The wire order is what the server owns.
  const transport = client.transport;
  const deliver = transport?.onmessage;
  if (transport && deliver)
    transport.onmessage = (message, extra) => {
      wire.push(message as WireMessage);
      deliver.call(transport, message, extra);
    };
}, 60_000);
afterAll(async () => {
  await client.close();
  ctx.cleanup();
});

type WireMessage = { method?: string; id?: unknown; params?: { progress?: number } };
const wire: WireMessage[] = [];

const fileUri = (rel: string) => pathToFileURL(path.join(ctx.work, rel)).href;
const textOf = (r: { contents: Array<{ text?: unknown; blob?: unknown }> }) =>
  String(r.contents[0]?.text ?? '');

describe('resources', () => {
  it('lists memories, this workspace’s sessions, the user’s resources and its files, a page at a time', async () => {
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(2);
    expect(uris[0]).toBe('tea://memories');
    expect(uris).toContain(`tea://sessions/${ids.here}`);
    expect(uris).not.toContain(`tea://sessions/${ids.elsewhere}`);
    expect(uris).toEqual(
      expect.arrayContaining([
        'test://static-text',
        fileUri('notes.txt'),
        fileUri('docs/guide.md'),
        fileUri('many/f119.txt'),
      ]),
    );
    expect(uris.filter((u) => u.includes('/.git/') || u.endsWith('link-out.txt'))).toEqual([]);
    await expect(client.listResources({ cursor: 'bogus' })).rejects.toThrow(/invalid cursor "bogus"/);
  });

  it('reads files as text or base64', async () => {
    expect(textOf(await client.readResource({ uri: fileUri('notes.txt') }))).toBe('first line\n');
    const bin = await client.readResource({ uri: fileUri('blob.bin') });
    expect(bin.contents[0]).toMatchObject({
      mimeType: 'application/octet-stream',
      blob: Buffer.from([0, 1, 2, 255]).toString('base64'),
    });
  });

  const work = () => pathToFileURL(ctx.work).href;
  it.each([
    ['a `..` out of the workspace', () => `${work()}/../outside.txt`, /outside the workspace/],
    ['an encoded `..`', () => `${work()}/%2e%2e/outside.txt`, /outside the workspace/],
    ['an encoded slash', () => `${work()}/..%2foutside.txt`, /must not include encoded \/ characters/],
    ['another absolute path', () => 'file:///etc/passwd', /outside the workspace/],
    [
      'a symbolic link out',
      () => fileUri('link-out.txt'),
      /leads outside the workspace .* through a symbolic link/,
    ],
    [
      'a file URI with a host',
      () => `file://evil.example${ctx.work}/notes.txt`,
      /only local files are served/,
    ],
    [
      'another scheme',
      () => 'http://127.0.0.1/notes.txt',
      /Tea serves file:\/\/ \(the workspace\), tea:\/\/ and the user resources' URIs/,
    ],
    ['a denied file', () => fileUri('secret.env'), /reading secret\.env is not allowed here/],
    ['a missing file', () => fileUri('nope.txt'), /no file/],
    [
      'another workspace’s session',
      () => `tea://sessions/${ids.elsewhere}`,
      /no session .* in this workspace/,
    ],
    ['another project’s memory', () => `tea://memories/${ids.foreign}`, /no memory .* for this workspace/],
    // A user template's {id} takes one path segment: what a module may build a path from.
    ['a `..` as a template variable', () => 'test://template/../data', /\{id\} takes one path segment/],
    ['an encoded `..` as a variable', () => 'test://template/%2e%2e/data', /\{id\} takes one path segment/],
    ['an encoded slash in a variable', () => 'test://template/a%2Fb/data', /\{id\} takes one path segment/],
    [
      'an encoded backslash in a variable',
      () => 'test://template/a%5Cb/data',
      /\{id\} takes one path segment/,
    ],
    ['a NUL in a variable', () => 'test://template/a%00b/data', /\{id\} holds control characters/],
    ['broken percent-encoding', () => 'test://template/%E0%A4%A/data', /not valid percent-encoding/],
  ])('refuses %s', async (_what, uri, why) => {
    await expect(client.readResource({ uri: uri() })).rejects.toThrow(why);
  });

  it('reads a session as Markdown and the memories this workspace sees', async () => {
    const s = textOf(await client.readResource({ uri: `tea://sessions/${ids.here}` }));
    expect(s).toContain('# Fixing the parser');
    expect(s).toContain('fix the parser');
    expect(s).toContain('Done: parser fixed.');
    const all = textOf(await client.readResource({ uri: 'tea://memories' }));
    expect(all).toContain('The parser lives in src/parse.ts');
    expect(all).toContain('The user prefers tabs');
    expect(all).not.toContain('Another project secret');
    expect(textOf(await client.readResource({ uri: `tea://memories/${ids.user}` }))).toContain(
      'The user prefers tabs',
    );
  });

  it('offers templates, and completes session ids', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['tea://sessions/{id}', 'tea://memories/{id}']),
    );
    const done = await client.complete({
      ref: { type: 'ref/resource', uri: 'tea://sessions/{id}' },
      argument: { name: 'id', value: ids.here.slice(0, 4) },
    });
    expect(done.completion.values).toEqual([ids.here]);
  });
});

describe('subscriptions', () => {
  it('tells a subscriber when a workspace file changes; refuses what it cannot watch', async () => {
    writeFileSync(path.join(ctx.work, 'watched.txt'), 'v1\n');
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    const uri = fileUri('watched.txt');
    expect(await client.subscribeResource({ uri })).toEqual({});
    writeFileSync(path.join(ctx.work, 'watched.txt'), 'v2\n');
    await vi.waitFor(() => expect(updated).toContain(uri), { timeout: 15_000 });
    expect(await client.unsubscribeResource({ uri })).toEqual({});
    await expect(client.subscribeResource({ uri: 'tea://memories' })).rejects.toThrow(
      /subscriptions are offered for workspace files \(file:\/\/\) and user resources, not tea:\/\/memories/,
    );
    await expect(client.subscribeResource({ uri: fileUri('link-out.txt') })).rejects.toThrow(
      /through a symbolic link/,
    );
  });
});

describe('prompts', () => {
  it('lists user commands with their arguments', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.find((p) => p.name === 'review')).toEqual({
      name: 'review',
      description: 'Review an issue',
      arguments: [
        { name: 'issue', description: 'issue', required: true },
        { name: 'branch', description: 'branch', required: false },
      ],
    });
    expect(prompts.find((p) => p.name === 'explain')?.arguments).toEqual([
      { name: 'arguments', description: 'the text after the command', required: false },
    ]);
  });

  it('expands a command with named arguments; refuses unknown or missing ones', async () => {
    const got = await client.getPrompt({ name: 'review', arguments: { issue: '42', branch: 'main dev' } });
    expect(got.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Review issue 42 on branch main dev.' } },
    ]);
    const explain = await client.getPrompt({ name: 'explain', arguments: { arguments: 'monads' } });
    expect(explain.messages[0]?.content).toEqual({ type: 'text', text: 'Explain monads simply.' });
    await expect(client.getPrompt({ name: 'review', arguments: { branch: 'x' } })).rejects.toThrow(
      /prompt review needs "issue"/,
    );
    await expect(client.getPrompt({ name: 'review', arguments: { issue: '1', bogus: 'x' } })).rejects.toThrow(
      /unknown argument "bogus" for prompt review; it takes: issue, branch/,
    );
    // An unknown prompt is invalid params (-32602) per the spec, not -32002 (resource not found).
    await expect(client.getPrompt({ name: 'nope' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/no prompt named "nope"; the prompts are: .*review/),
    });
  });
});

describe('progress and logging', () => {
  it('sends a tool’s progress to a client that asked, and logs at the level it chose', async () => {
    const progress: number[] = [];
    const from = wire.length;
    const result = await client.request(
      { method: 'tools/call', params: { name: 'test_tool_with_progress', arguments: {} } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(result.isError).toBe(false);
    // On the wire: all three reports, then the answer.
    const seen = wire.slice(from);
    const answer = seen.findIndex((m) => m.method === undefined && m.id !== undefined);
    expect(answer).toBeGreaterThan(0);
    expect(
      seen
        .slice(0, answer)
        .flatMap((m) => (m.method === 'notifications/progress' ? [m.params?.progress] : [])),
    ).toEqual([0, 50, 100]);
    // The client's handler saw them in order (those that came with the answer may lose the
    // race described above).
    expect([0, 50, 100].slice(0, progress.length)).toEqual(progress);

    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(`${n.params.level}: ${String(n.params.data)}`);
    });
    // Before logging/setLevel: nothing is sent.
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await client.callTool({ name: 'read_file', arguments: { path: 'nope.txt' } });
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await client.ping(); // notifications sent before the answers above have arrived by now
    expect(logs[0]).toMatch(/^error: read_file: \[ERROR\]/);
    expect(logs.slice(1)).toEqual([
      'info: Tool execution started',
      'info: Tool processing data',
      'info: Tool execution completed',
    ]);
  });
});

describe('asking the client', () => {
  it('a tool that asks the user or the model fails clearly when the client offers neither', async () => {
    const asked = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    expect(asked.isError).toBe(true);
    expect(JSON.stringify(asked.content)).toContain('[ERROR] nobody can be asked here');
    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
    expect(sampled.isError).toBe(true);
    expect(JSON.stringify(sampled.content)).toContain('[ERROR] no model can be asked here');
  });

  it('a client that offers elicitation and sampling answers them', async () => {
    const other = new Client(
      { name: 'asker', version: '1.0.0' },
      { capabilities: { elicitation: {}, sampling: {} } },
    );
    other.setRequestHandler(ElicitRequestSchema, async (r) => ({
      action: 'accept',
      content: { username: 'ada', email: `ada@${r.params.message.length}.example` },
    }));
    other.setRequestHandler(CreateMessageRequestSchema, async (r) => ({
      role: 'assistant',
      content: { type: 'text', text: `echo ${JSON.stringify(r.params.messages[0]?.content)}` },
      model: 'client-model',
    }));
    await other.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [TEA_BIN, 'mcp', 'serve', '--cwd', ctx.work, '--permission-mode', 'read-only'],
        env: ctx.env as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    try {
      const asked = await other.callTool({
        name: 'test_elicitation',
        arguments: { message: 'Who are you?' },
      });
      expect(JSON.stringify(asked.content)).toContain(
        'User response: {\\"action\\":\\"accept\\",\\"content\\":{\\"username\\":\\"ada\\",\\"email\\":\\"ada@12.example\\"}}',
      );
      const sampled = await other.callTool({ name: 'test_sampling', arguments: { prompt: 'hi there' } });
      expect(JSON.stringify(sampled.content)).toContain(
        'LLM response: echo {\\"type\\":\\"text\\",\\"text\\":\\"hi there\\"}',
      );
    } finally {
      await other.close();
    }
  });
});

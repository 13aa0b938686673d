/**
 * User resources (`TEA_HOME/resources/*.js`) and user commands that embed files and
 * resources (`@image`, `@resource`), through the built CLI over stdio with the MCP SDK's
 * client: what a module offers is listed, read and watched; a module that fails its
 * checks is skipped with a warning naming why; an edited module counts from the next
 * request on; an untrusted project's modules never run; template variables and embedded
 * paths pass the same checks as resources/read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CliEnv, cliEnv, runTea, TEA_BIN } from '../support/cli.js';
import { RED_PIXEL } from './mcp-fixtures.js';

let ctx: CliEnv;
let client: Client;
let stderr = '';
const resources = () => path.join(ctx.home, 'resources');

const NOTES = (today: string) =>
  [
    "import { readFileSync } from 'node:fs';",
    "import path from 'node:path';",
    'export default {',
    '  resources: [',
    `    { uri: 'notes://today', name: 'today', title: 'Today', mimeType: 'text/markdown', read: () => ${JSON.stringify(today)} },`,
    "    { uri: 'notes://bytes', name: 'bytes', mimeType: 'application/octet-stream', read: () => new Uint8Array([0, 1, 2]) },",
    "    { uri: 'notes://workspace', name: 'workspace', read: (c) => readFileSync(path.join(c.cwd, 'notes.txt'), 'utf8') },",
    "    { uri: 'notes://broken', name: 'broken', read: () => { throw new Error('the notes server is down'); } },",
    "    { uri: 'notes://odd', name: 'odd', read: () => 42 },",
    '  ],',
    '  templates: [',
    "    { uriTemplate: 'notes://file/{+path}', name: 'file', read: (p) => 'path=' + p.path,",
    "      complete: (variable, prefix) => ['alpha', 'beta', 'alps'].filter((v) => variable === 'path' && v.startsWith(prefix)) },",
    '  ],',
    '};',
    '',
  ].join('\n');

beforeAll(async () => {
  ctx = cliEnv();
  mkdirSync(resources(), { recursive: true });
  writeFileSync(path.join(ctx.work, 'notes.txt'), 'first line\n');
  writeFileSync(path.join(ctx.work, 'red.png'), Buffer.from(RED_PIXEL, 'base64'));
  writeFileSync(path.join(resources(), 'notes.js'), NOTES('# Today\n'));
  writeFileSync(
    path.join(resources(), 'runs.js'),
    "import { execSync } from 'node:child_process';\nexport default { resources: [{ uri: 'x://runs', name: 'runs', read: () => String(execSync('id')) }] };\n",
  );
  writeFileSync(
    path.join(resources(), 'fetches.js'),
    "export default { resources: [{ uri: 'x://net', name: 'net', read: () => fetch('http://127.0.0.1/') }] };\n",
  );
  writeFileSync(
    path.join(resources(), 'evals.js'),
    "export default { resources: [{ uri: 'x://eval', name: 'eval', read: () => eval('1') }] };\n",
  );
  writeFileSync(
    path.join(resources(), 'owns-files.js'),
    "export default { resources: [{ uri: 'file:///etc/passwd', name: 'pw', read: () => 'x' }] };\n",
  );
  writeFileSync(path.join(resources(), 'shapeless.js'), 'export default { items: [] };\n');
  writeFileSync(path.join(resources(), 'zz-clash.js'), NOTES('shadowed'));
  mkdirSync(path.join(ctx.work, '.tea', 'resources'), { recursive: true });
  writeFileSync(
    path.join(ctx.work, '.tea', 'resources', 'project.js'),
    "export default { resources: [{ uri: 'project://x', name: 'x', read: () => 'ran' }] };\n",
  );
  const commands = path.join(ctx.work, '.tea', 'commands');
  mkdirSync(commands, { recursive: true });
  writeFileSync(path.join(commands, 'look.md'), 'Look at this:\n@image red.png\nWhat colour is it?\n');
  writeFileSync(
    path.join(commands, 'embed.md'),
    '---\nargument-hint: <target> [note]\n---\nRead this.\n@resource $1\nNote: $2\n',
  );
  writeFileSync(path.join(commands, 'picture.md'), '@image $1\n');
  client = new Client({ name: 'tea-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TEA_BIN, 'mcp', 'serve', '--cwd', ctx.work, '--permission-mode', 'read-only'],
    env: ctx.env as Record<string, string>,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  await client.connect(transport);
}, 60_000);
afterAll(async () => {
  await client.close();
  ctx.cleanup();
});

const textOf = (r: { contents: Array<{ text?: unknown; blob?: unknown }> }) =>
  String(r.contents[0]?.text ?? '');

describe('user resources', () => {
  it('lists what the modules define, skipping each module that fails its checks with the reason', async () => {
    const { resources: listed } = await client.listResources();
    const uris = listed.map((r) => r.uri);
    expect(listed.find((r) => r.uri === 'notes://today')).toEqual({
      uri: 'notes://today',
      name: 'today',
      title: 'Today',
      mimeType: 'text/markdown',
    });
    expect(uris).toEqual(expect.arrayContaining(['notes://bytes', 'notes://workspace']));
    for (const absent of ['x://runs', 'x://net', 'x://eval', 'file:///etc/passwd', 'project://x'])
      expect(uris).not.toContain(absent);
    const warned = (file: string, why: RegExp) =>
      expect(stderr).toMatch(new RegExp(`user resources \\S*${file} skipped: ${why.source}`));
    warned('runs.js', /resource modules may only read, and its code needs "exec"/);
    warned('fetches.js', /resource modules may only read, and its code needs "network"/);
    warned('evals.js', /its code does something no module may do: eval/);
    warned('owns-files.js', /resources\[0\]\.uri: file: URIs are Tea's own/);
    warned('shapeless.js', /the module defines no resources or templates/);
    expect(stderr).toMatch(
      /user resource notes:\/\/today in \S*zz-clash\.js skipped: \S*notes\.js defines it already/,
    );
    expect(stderr).toMatch(/user resources in \S*\.tea\/resources not loaded: the project is not trusted/);
  });

  it('reads text, bytes as base64, and files through the module’s own code', async () => {
    expect(await client.readResource({ uri: 'notes://today' })).toEqual({
      contents: [{ uri: 'notes://today', mimeType: 'text/markdown', text: '# Today\n' }],
    });
    expect((await client.readResource({ uri: 'notes://bytes' })).contents[0]).toEqual({
      uri: 'notes://bytes',
      mimeType: 'application/octet-stream',
      blob: Buffer.from([0, 1, 2]).toString('base64'),
    });
    expect(textOf(await client.readResource({ uri: 'notes://workspace' }))).toBe('first line\n');
    await expect(client.readResource({ uri: 'notes://broken' })).rejects.toThrow(
      /reading notes:\/\/broken failed: the notes server is down/,
    );
    await expect(client.readResource({ uri: 'notes://odd' })).rejects.toThrow(
      /notes:\/\/odd returned content that is neither text, bytes nor \{ text \| blob \}/,
    );
  });

  it('reads through a template and completes its variable', async () => {
    expect(textOf(await client.readResource({ uri: 'notes://file/a/b%20c.md' }))).toBe('path=a/b c.md');
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('notes://file/{+path}');
    const done = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes://file/{+path}' },
      argument: { name: 'path', value: 'al' },
    });
    expect(done.completion.values).toEqual(['alpha', 'alps']);
  });

  it.each([
    ['a `..` segment', 'notes://file/a/../b'],
    ['an encoded `..` segment', 'notes://file/a/%2e%2e/b'],
    ['a leading `..`', 'notes://file/../etc/passwd'],
    ['a `..` after a backslash', 'notes://file/a%5C..%5Cb'],
  ])('refuses %s in a {+path} variable', async (_what, uri) => {
    await expect(client.readResource({ uri })).rejects.toThrow(/\{\+path\} must not hold "\.\." segments/);
  });

  it('counts an edited module from the next request on, and tells a subscriber', async () => {
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    expect(await client.subscribeResource({ uri: 'notes://today' })).toEqual({});
    writeFileSync(path.join(resources(), 'notes.js'), NOTES('# Today, edited\n'));
    await vi.waitFor(() => expect(updated).toContain('notes://today'), { timeout: 15_000 });
    expect(textOf(await client.readResource({ uri: 'notes://today' }))).toBe('# Today, edited\n');
    expect(await client.unsubscribeResource({ uri: 'notes://today' })).toEqual({});
    await expect(client.subscribeResource({ uri: 'nothing://here' })).rejects.toThrow(
      /subscriptions are offered for workspace files \(file:\/\/\) and user resources, not nothing:\/\/here/,
    );
  });
});

describe('the list of resources', () => {
  it('tells the client when a module is added, and lists it from then on', async () => {
    let told = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      told += 1;
    });
    writeFileSync(
      path.join(resources(), 'added.js'),
      "export default { resources: [{ uri: 'added://one', name: 'one', read: () => 'new' }] };\n",
    );
    await vi.waitFor(() => expect(told).toBeGreaterThan(0), { timeout: 15_000 });
    const { resources: listed } = await client.listResources();
    expect(listed.map((r) => r.uri)).toContain('added://one');
    expect(textOf(await client.readResource({ uri: 'added://one' }))).toBe('new');
  });
});

describe('user commands that embed files and resources', () => {
  it('an @image line becomes an image message between the text', async () => {
    const got = await client.getPrompt({ name: 'look' });
    expect(got.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Look at this:' } },
      { role: 'user', content: { type: 'image', data: RED_PIXEL, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'What colour is it?' } },
    ]);
  });

  it('an @resource line embeds a user resource or a workspace file named by an argument', async () => {
    const got = await client.getPrompt({ name: 'embed', arguments: { target: 'notes://today', note: 'hi' } });
    expect(got.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Read this.' } },
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: 'notes://today', mimeType: 'text/markdown', text: '# Today, edited\n' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Note: hi' } },
    ]);
    const file = await client.getPrompt({ name: 'embed', arguments: { target: 'notes.txt' } });
    expect(file.messages[1]?.content).toMatchObject({
      type: 'resource',
      resource: { mimeType: 'text/plain', text: 'first line\n' },
    });
  });

  it('an argument that holds an embed line stays text', async () => {
    const got = await client.getPrompt({
      name: 'embed',
      arguments: { target: 'notes.txt', note: 'x\n@resource file:///etc/passwd' },
    });
    expect(got.messages).toHaveLength(3);
    expect(got.messages[2]?.content).toEqual({ type: 'text', text: 'Note: x\n@resource file:///etc/passwd' });
  });

  it.each([
    [
      'a path out of the workspace',
      { name: 'embed', arguments: { target: '../outside.txt' } },
      /outside the workspace/,
    ],
    [
      'an absolute path elsewhere',
      { name: 'embed', arguments: { target: 'file:///etc/passwd' } },
      /outside the workspace/,
    ],
    ['a missing file', { name: 'embed', arguments: { target: 'nope.txt' } }, /no file/],
    [
      'an unknown resource',
      { name: 'embed', arguments: { target: 'nothing://here' } },
      /no resource nothing:\/\/here/,
    ],
    [
      'a text file as an image',
      { name: 'picture', arguments: { arg1: 'notes.txt' } },
      /@image notes\.txt: .* is text\/plain, not a PNG, JPEG, GIF or WebP image/,
    ],
  ])('refuses %s', async (_what, request, why) => {
    await expect(client.getPrompt(request)).rejects.toThrow(why);
  });
});

describe('a project’s own resources', () => {
  it('run once the user trusts the project (tea trust), and win over the user’s on the same URI', async () => {
    const p = cliEnv();
    try {
      mkdirSync(path.join(p.work, '.tea', 'resources'), { recursive: true });
      writeFileSync(path.join(p.work, '.tea', 'config.yaml'), 'permissions:\n  mode: ask\n');
      writeFileSync(
        path.join(p.work, '.tea', 'resources', 'project.js'),
        "export default { resources: [{ uri: 'project://x', name: 'x', read: () => 'from the project' }, { uri: 'shared://y', name: 'y', read: () => 'project wins' }] };\n",
      );
      mkdirSync(path.join(p.home, 'resources'), { recursive: true });
      writeFileSync(
        path.join(p.home, 'resources', 'mine.js'),
        "export default { resources: [{ uri: 'shared://y', name: 'y', read: () => 'user loses' }] };\n",
      );
      const trusted = await runTea(['trust', '--cwd', p.work], { env: p.env });
      expect(trusted.code, trusted.stderr).toBe(0);
      const c = new Client({ name: 'tea-test', version: '1.0.0' });
      await c.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [TEA_BIN, 'mcp', 'serve', '--cwd', p.work, '--permission-mode', 'read-only'],
          env: p.env as Record<string, string>,
          stderr: 'pipe',
        }),
      );
      try {
        expect(textOf(await c.readResource({ uri: 'project://x' }))).toBe('from the project');
        expect(textOf(await c.readResource({ uri: 'shared://y' }))).toBe('project wins');
      } finally {
        await c.close();
      }
    } finally {
      p.cleanup();
    }
  }, 60_000);
});

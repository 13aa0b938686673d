import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { AcpClientFs, clientFsFor } from '../../src/acp/client-fs.js';
import { parseCommand } from '../../src/acp/commands.js';
import { DiffTracker } from '../../src/acp/diffs.js';
import { parseMode } from '../../src/acp/modes.js';
import { toTeaPrompt, uriToPath } from '../../src/acp/prompt-input.js';
import { replayUpdates } from '../../src/acp/replay.js';
import { loadForTitles, toolKind, toolLocations, toolTitle } from '../../src/acp/tool-info.js';
import type { Message } from '../../src/llm/types.js';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import { type ClientFs, ToolError } from '../../src/tools/types.js';

const tools = await createToolRegistry();
const dirs: string[] = [];
function tempDir(): string {
  const d = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tea-acp-')));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('prompt content → Tea input', () => {
  it('inlines text resources in a fence longer than any inside, names links, keeps images', () => {
    const p = toTeaPrompt([
      { type: 'text', text: 'Look:' },
      { type: 'resource', resource: { uri: 'file:///w/readme.md', text: 'a\n```js\nx\n```' } },
      { type: 'resource_link', uri: 'file:///w/big.log', name: 'big.log', size: 2048 },
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
      { type: 'resource', resource: { uri: 'file:///w/p.jpg', blob: 'BBBB', mimeType: 'image/jpeg' } },
      { type: 'resource', resource: { uri: 'file:///w/x.bin', blob: 'CCCC', mimeType: 'application/zip' } },
    ]);
    expect(p.text).toBe(
      [
        'Look:',
        '[Contents of /w/readme.md]\n````\na\n```js\nx\n```\n````',
        '[Referenced: /w/big.log, 2048 bytes (read it with read_file if needed)]',
        '[Attached binary resource /w/x.bin (application/zip): not shown]',
      ].join('\n\n'),
    );
    expect(p.images).toEqual([
      { type: 'image', mediaType: 'image/png', data: 'AAAA' },
      { type: 'image', mediaType: 'image/jpeg', data: 'BBBB' },
    ]);
  });

  it('refuses audio with an invalid-params error', () => {
    expect(() => toTeaPrompt([{ type: 'audio', mimeType: 'audio/wav', data: 'AA' }])).toThrow(
      expect.objectContaining({ code: -32602, message: expect.stringContaining('audio prompts') }),
    );
  });

  it('turns file URIs into paths and leaves others', () => {
    expect(uriToPath('file:///a/b%20c.txt')).toBe('/a/b c.txt');
    expect(uriToPath('https://x.dev/a')).toBe('https://x.dev/a');
  });
});

describe('tool kinds, titles and locations', () => {
  it('maps tools to ACP kinds', () => {
    const kinds = Object.fromEntries(
      ['read_file', 'write_file', 'apply_patch', 'delete_path', 'move_path', 'grep', 'glob', 'bash']
        .concat(['web_fetch', 'web_search', 'todo_write', 'git_status', 'git_commit', 'calculate', 'nope'])
        .map((n) => [n, toolKind(tools, n)]),
    );
    expect(kinds).toEqual({
      read_file: 'read',
      write_file: 'edit',
      apply_patch: 'edit',
      delete_path: 'delete',
      move_path: 'move',
      grep: 'search',
      glob: 'read',
      bash: 'execute',
      web_fetch: 'fetch',
      web_search: 'search',
      todo_write: 'think',
      git_status: 'read',
      git_commit: 'execute',
      calculate: 'other',
      nope: 'other',
    });
  });

  it('titles with the subject (once the tool is loaded) and lists absolute locations', async () => {
    const cwd = tempDir();
    expect(toolTitle(tools, 'bash', { command: 'npm   test' })).toBe('bash');
    await loadForTitles(tools, ['bash', 'uuid']);
    expect(toolTitle(tools, 'bash', { command: 'npm   test' })).toBe('bash: npm test');
    expect(toolTitle(tools, 'uuid', {})).toBe('uuid');
    expect(toolLocations('read_file', { path: 'a.ts', offset: 40 }, cwd)).toEqual([
      { path: path.join(cwd, 'a.ts'), line: 40 },
    ]);
    expect(toolLocations('move_path', { from: 'a', to: 'sub/b' }, cwd)).toEqual([
      { path: path.join(cwd, 'a') },
      { path: path.join(cwd, 'sub/b') },
    ]);
    const patch =
      '*** Begin Patch\n*** Update File: x.ts\n@@\n-a\n+b\n*** Add File: y.ts\n+new\n*** End Patch';
    expect(toolLocations('apply_patch', { patch }, cwd).map((l) => l.path)).toEqual([
      path.join(cwd, 'x.ts'),
      path.join(cwd, 'y.ts'),
    ]);
  });
});

describe('diffs of file changes', () => {
  it('snapshots disk files at start and reports changed ones at finish', async () => {
    const cwd = tempDir();
    writeFileSync(path.join(cwd, 'x.ts'), 'a\n');
    const tracker = new DiffTracker(cwd, undefined);
    const patch =
      '*** Begin Patch\n*** Update File: x.ts\n@@\n-a\n+b\n*** Add File: y.ts\n+new\n*** End Patch';
    tracker.start('c1', 'apply_patch', { patch });
    writeFileSync(path.join(cwd, 'x.ts'), 'b\n');
    writeFileSync(path.join(cwd, 'y.ts'), 'new\n');
    expect(await tracker.finish('c1', true)).toEqual([
      { type: 'diff', path: path.join(cwd, 'x.ts'), oldText: 'a\n', newText: 'b\n' },
      { type: 'diff', path: path.join(cwd, 'y.ts'), oldText: null, newText: 'new\n' },
    ]);
    tracker.start('c2', 'write_file', { path: 'x.ts', content: 'c\n' });
    expect(await tracker.finish('c2', false)).toEqual([]);
    tracker.start('c3', 'read_file', { path: 'x.ts' });
    expect(await tracker.finish('c3', true)).toEqual([]);
  });

  it('reads through the client fs for tools that write through it', async () => {
    const cwd = tempDir();
    const file = path.join(cwd, 'n.txt');
    const buffers = new Map([[file, 'old buffer']]);
    const fs: ClientFs = {
      readTextFile: async (p) => {
        const t = buffers.get(p);
        if (t === undefined) throw new ToolError('no buffer');
        return t;
      },
      writeTextFile: async (p, c) => {
        buffers.set(p, c);
      },
    };
    const tracker = new DiffTracker(cwd, fs);
    tracker.start('c1', 'edit_file', { path: 'n.txt', old_string: 'old', new_string: 'new' });
    buffers.set(file, 'new buffer');
    expect(await tracker.finish('c1', true)).toEqual([
      { type: 'diff', path: file, oldText: 'old buffer', newText: 'new buffer' },
    ]);
  });
});

describe('replay of a stored transcript', () => {
  it('emits user, thought, message, tool call and result updates in order', () => {
    const history: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'hmm' },
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', id: 'c1', name: 'grep', args: { pattern: 'x' } },
        ],
      },
      {
        role: 'tool',
        parts: [{ type: 'tool-result', callId: 'c1', name: 'grep', output: 'no match', isError: true }],
      },
    ];
    const kinds = replayUpdates(history, tools, '/w').map((u) => u.sessionUpdate);
    expect(kinds).toEqual([
      'user_message_chunk',
      'agent_thought_chunk',
      'agent_message_chunk',
      'tool_call',
      'tool_call_update',
    ]);
    expect(replayUpdates(history, tools, '/w').at(-1)).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      status: 'failed',
      content: [{ type: 'content', content: { type: 'text', text: 'no match' } }],
    });
  });
});

describe('commands and modes', () => {
  it('recognises only known slash commands at the start', () => {
    expect(parseCommand('/mode yolo')).toEqual({ name: 'mode', arg: 'yolo' });
    expect(parseCommand('  /memory  tabs and spaces ')).toEqual({ name: 'memory', arg: 'tabs and spaces' });
    expect(parseCommand('/deploy now')).toBeUndefined();
    expect(parseCommand('please /mode yolo')).toBeUndefined();
  });

  it('checks mode ids', () => {
    expect(parseMode('auto-edit')).toBe('auto-edit');
    expect(() => parseMode('fast')).toThrow(
      /unknown mode "fast": use one of read-only, ask, auto-edit, yolo/,
    );
  });
});

describe('AcpClientFs', () => {
  it('uses the client for what it offers and the disk for the rest; errors name the file', async () => {
    const cwd = tempDir();
    const reads: acp.ReadTextFileRequest[] = [];
    const agentApp = acp.agent({ name: 'a' });
    const clientApp = acp
      .client({ name: 'c' })
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        reads.push(params);
        if (params.path.endsWith('missing')) throw acp.RequestError.resourceNotFound(params.path);
        return { content: 'from editor' };
      });
    const conn = agentApp.connect(clientApp);
    const fs = new AcpClientFs(conn.client, () => 's1', { read: true, write: false });
    expect(await fs.readTextFile(path.join(cwd, 'a.txt'), { line: 2, limit: 3 })).toBe('from editor');
    expect(reads[0]).toEqual({ sessionId: 's1', path: path.join(cwd, 'a.txt'), line: 2, limit: 3 });
    await expect(fs.readTextFile(path.join(cwd, 'missing'))).rejects.toThrow(
      /the editor could not read .*missing: Resource not found/,
    );
    await fs.writeTextFile(path.join(cwd, 'd/b.txt'), 'on disk');
    expect(
      await new AcpClientFs(conn.client, () => 's1', { read: false, write: false }).readTextFile(
        path.join(cwd, 'd/b.txt'),
      ),
    ).toBe('on disk');
    expect(clientFsFor(conn.client, () => 's1', { fs: {} })).toBeUndefined();
    expect(clientFsFor(conn.client, () => 's1', { fs: { writeTextFile: true } })).toBeInstanceOf(AcpClientFs);
    conn.close();
  });
});

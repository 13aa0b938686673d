/**
 * Every JSON document the CLI prints names its fields in snake_case (`session_id`,
 * `created_at`), like the OpenAI-style API; tool arguments and JSON schemas keep theirs.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work, input: '' });

/** Keys of our own fields that are not snake_case (values under data keys are not ours). */
function badKeys(value: unknown, at = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => badKeys(v, `${at}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const here = /^[a-z0-9_]+$/.test(key) ? [] : [`${at}.${key}`];
    const data = ['args', 'parameters', 'input_schema'].includes(key);
    return [...here, ...(data ? [] : badKeys(inner, `${at}.${key}`))];
  });
}

async function json(args: string[]): Promise<unknown> {
  const r = await tea(args);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

describe('JSON output', () => {
  it('tea -p --output-format json and stream-json use snake_case', async () => {
    t.server.script(
      reply().toolCall('write_file', { path: 'a.txt', content: 'x' }).usage(10, 2),
      reply().text('Wrote it.').usage(20, 3),
    );
    const result = await json(['-p', 'write', '--output-format', 'json', '--allow', 'write_file']);
    expect(badKeys(result)).toEqual([]);
    expect(result).toMatchObject({ session_id: expect.any(String), usage: { input_tokens: 30 } });

    t.server.script(
      reply().thinking('hm').toolCall('write_file', { path: 'b.txt', content: 'y' }).usage(5, 1),
      reply().text('Done.'),
    );
    const r = await tea(['-p', 'go', '--output-format', 'stream-json', '--allow', 'write_file']);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(badKeys(events)).toEqual([]);
    expect(events.find((e) => e.type === 'turn_start')).toMatchObject({
      session_id: expect.any(String),
      turn_id: expect.any(String),
    });
    const updates = events.filter((e) => e.type === 'tool_update');
    expect(updates.map((e) => (e.record as { state: string }).state)).toEqual([
      'pending',
      'running',
      'completed',
    ]);
    expect(updates[0]).toMatchObject({
      record: { call_id: expect.any(String), turn_id: expect.any(String), created_at: expect.any(Number) },
    });
    expect(updates.at(-1)).toMatchObject({
      record: {
        args: { path: 'b.txt', content: 'y' },
        started_at: expect.any(Number),
        finished_at: expect.any(Number),
        duration_ms: expect.any(Number),
        content: [{ type: 'text', text: expect.stringContaining('b.txt') }],
      },
    });
    expect(events.at(-1)).toMatchObject({ type: 'done', session_id: expect.any(String), cost_usd: 0 });
  });

  it('sessions, memory, tools, mcp and trust --json use snake_case', async () => {
    t.server.script(reply().toolCall('list_dir', {}), reply().text('Listed.'));
    expect((await tea(['-p', 'list'])).code).toBe(0);
    const sessionList = (await json(['sessions', 'list', '--json'])) as {
      sessions: Array<Record<string, unknown>>;
    };
    expect(badKeys(sessionList)).toEqual([]);
    const sessions = sessionList.sessions;
    expect(badKeys(sessions)).toEqual([]);
    expect(sessions[0]).toMatchObject({ created_at: expect.any(Number), message_count: 4 });
    const shown = await json(['sessions', 'show', String(sessions[0]!.id), '--json']);
    expect(badKeys(shown)).toEqual([]);
    expect(JSON.stringify(shown)).toContain('"is_error":false');

    appendFileSync(path.join(t.ctx.home, 'config.yaml'), 'mcp_servers:\n  notes: { command: notes-mcp }\n');
    const servers = await json(['mcp', 'list', '--json']);
    expect(servers).toEqual([expect.objectContaining({ name: 'notes', cached_tools: null })]);
    expect(
      (await tea(['memory', 'add', '--offline', 'The staging API of Heron runs on port 9090.'])).code,
    ).toBe(0);
    for (const args of [
      ['memory', 'list', '--json'],
      ['memory', 'list', '--all', '--json'],
      ['memory', 'search', 'Heron', '--json'],
      ['memory', 'history', '1', '--json'],
      ['tools', 'list', '--json'],
      ['mcp', 'list', '--json'],
      ['trust', '--list', '--json'],
    ]) {
      expect(badKeys(await json(args)), args.join(' ')).toEqual([]);
    }
    const listed = (await json(['memory', 'list', '--json'])) as Array<Record<string, unknown>>;
    expect(listed[0]).toMatchObject({ content_hash: expect.any(String), valid_from: expect.any(Number) });
    const tool = (await json(['tools', 'show', 'grep', '--json'])) as Record<string, unknown>;
    expect(tool).toMatchObject({ read_only: true, concurrency_safe: true });
    // A JSON schema keeps its own keywords.
    expect(JSON.stringify(tool.parameters)).not.toMatch(/"[a-z]+_[a-z]+":\{"type"/);
  });

  it('tea memory export writes snake_case that tea memory import reads back as it was', async () => {
    await tea(['memory', 'add', '--offline', 'The staging API of Heron runs on port 9090.']);
    await tea(['memory', 'add', '--offline', "Heron's staging API now runs on port 9191."]);
    const file = path.join(t.ctx.work, 'mem.json');
    expect((await tea(['memory', 'export', file])).code).toBe(0);
    const exported = JSON.parse(readFileSync(file, 'utf8')) as Array<Record<string, unknown>>;
    expect(badKeys(exported)).toEqual([]);
    expect(exported.some((m) => m.superseded_by !== null)).toBe(true);

    const other = cliEnv();
    try {
      const imported = await runTea(['memory', 'import', file], { env: other.env });
      expect(imported.stdout).toMatch(/imported 2 memories/);
      const all = JSON.parse(
        (await runTea(['memory', 'list', '--all', '--json'], { env: other.env })).stdout,
      );
      const old = all.find((m: { content: string }) => m.content.includes('9090'));
      const current = all.find((m: { content: string }) => m.content.includes('9191'));
      expect(old.superseded_by).toBe(current.id);
      expect(old.valid_to).toBe(exported.find((m) => String(m.content).includes('9090'))!.valid_to);
      // A camelCase export from before still imports.
      const camel = path.join(other.work, 'old.json');
      writeFileSync(
        camel,
        JSON.stringify([{ content: 'Old style', category: 'fact', createdAt: 1740787200000 }]),
      );
      expect((await runTea(['memory', 'import', camel], { env: other.env })).stdout).toMatch(
        /imported 1 memory/,
      );
    } finally {
      other.cleanup();
    }
  });
});

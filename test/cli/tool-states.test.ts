/**
 * The tool-call states as `tea -p --output-format stream-json` prints them: a call is
 * validated and authorised before it runs, so one refused by the policy or with bad
 * arguments goes from `pending` to its end without ever being `running`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

interface Record {
  call_id: string;
  name: string;
  state: string;
  started_at?: number;
  content: Array<{ type: string; text?: string }>;
}

/** The `tool_update` records of a stream-json run, and the states each call went through. */
async function streamStates(
  args: string[],
): Promise<{ code: number | null; stderr: string; calls: Map<string, Record[]> }> {
  const r = await runTea(['-p', 'go', '--output-format', 'stream-json', ...args], {
    env: t.ctx.env,
    cwd: t.ctx.work,
    input: '',
  });
  const calls = new Map<string, Record[]>();
  for (const line of r.stdout.trim().split('\n')) {
    const e = JSON.parse(line) as { type: string; record?: Record };
    if (e.type !== 'tool_update' || !e.record) continue;
    calls.set(e.record.call_id, [...(calls.get(e.record.call_id) ?? []), e.record]);
  }
  return { code: r.code, stderr: r.stderr, calls };
}

const text = (r: Record): string => r.content.map((p) => p.text ?? '').join('');

describe('tool-call states through tea -p', () => {
  it('a call the policy denies goes pending → denied and never shows as running', async () => {
    t.server.script(
      reply().toolCall('write_file', { path: 'refused.txt', content: 'no' }),
      reply().text('I could not write it.'),
    );
    const r = await streamStates([]);
    expect(r.code).toBe(5);
    const [records] = [...r.calls.values()];
    expect(records!.map((c) => c.state)).toEqual(['pending', 'denied']);
    expect(records!.at(-1)!.started_at).toBeUndefined();
    expect(text(records!.at(-1)!)).toMatch(
      /^\[DENIED\] write_file \(refused\.txt\) needs the user's approval/,
    );
    expect(existsSync(path.join(t.ctx.work, 'refused.txt'))).toBe(false);
    expect(r.stderr).toMatch(/tea: refused write_file \(refused\.txt\)/);
  });

  it('calls with invalid arguments, bad JSON or an unknown name go pending → error, never running', async () => {
    t.server.script(
      reply()
        .toolCall('read_file', { limit: 'many' })
        .toolCallRaw('list_dir', '{{{{ not json at all')
        .toolCall('read_flie', { path: 'a.txt' }),
      reply().text('Those failed.'),
    );
    const r = await streamStates([]);
    expect(r.code).toBe(0);
    const ended = [...r.calls.values()].map((records) => ({
      name: records[0]!.name,
      states: records.map((c) => c.state),
      output: text(records.at(-1)!),
    }));
    expect(ended).toEqual([
      {
        name: 'read_file',
        states: ['pending', 'error'],
        output: expect.stringMatching(/^\[ERROR\] Invalid arguments for read_file: path: required/),
      },
      {
        name: 'list_dir',
        states: ['pending', 'error'],
        output: expect.stringMatching(/^\[ERROR\] Invalid JSON arguments for list_dir/),
      },
      {
        name: 'read_flie',
        states: ['pending', 'error'],
        output: expect.stringMatching(/^\[ERROR\] Unknown tool "read_flie"\. Did you mean: read_file/),
      },
    ]);
  });

  it('an allowed call goes pending → running → completed', async () => {
    t.server.script(
      reply().toolCall('write_file', { path: 'allowed.txt', content: 'yes' }),
      reply().text('Wrote it.'),
    );
    const r = await streamStates(['--allow', 'write_file']);
    expect(r.code).toBe(0);
    const [records] = [...r.calls.values()];
    expect(records!.map((c) => c.state)).toEqual(['pending', 'running', 'completed']);
    expect(records!.at(-1)!.started_at).toEqual(expect.any(Number));
  });
});

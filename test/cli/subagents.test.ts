/**
 * Sub-agents in `tea -p`, through the built CLI and the scripted model server: one
 * stderr line per change of a child (never per token), the children's text kept out
 * of stdout, stream-json with a `parent` field, the usage split, refusals named
 * with the child.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstUser, isChild, isFirstCall, task } from '../multi/helpers.js';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages } from '../support/wire.js';

const t = useScriptedCli('sk-test', { config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n` });

const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });

/** Children: a glob, then their answer; the parent: delegate_tasks with two tasks, then its own answer. */
function twoChildren(): void {
  t.server.respond((body) => {
    if (isChild(body)) {
      const n = /part (\d)/.exec(firstUser(body))?.[1];
      return isFirstCall(body)
        ? reply().toolCall('glob', { pattern: '*.md' }).usage(100, 10)
        : reply().text(`CHILD ${n} SECRET ANSWER`).usage(200, 20);
    }
    if (isFirstCall(body))
      return reply()
        .toolCall('delegate_tasks', { tasks: [task(1), task(2)] })
        .usage(50, 5);
    return reply().text('Both parts are fine.').usage(60, 6);
  });
}

const linesOf = (stderr: string, label: string) => stderr.split('\n').filter((l) => l.includes(`${label} ·`));

describe('tea -p with sub-agents', () => {
  it('shows one line per change of each child on stderr, and only the parent’s answer on stdout', async () => {
    twoChildren();
    const r = await tea(['-p', 'check both parts in parallel']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Both parts are fine.\n');
    expect(r.stderr).not.toContain('SECRET');
    for (const label of ['general #1', 'general #2']) {
      // Started, running its tool, done: three lines, however many tokens streamed.
      expect(linesOf(r.stderr, label)).toEqual([
        `⏵ ${label} · running · 0 tokens`,
        `⏵ ${label} · running · 110 tokens · glob`,
        `✓ ${label} · done · 330 tokens`,
      ]);
    }
    expect(r.stderr).toContain(
      'tea: usage: 781 tokens, $0.0000; of which 2 sub-agents: 660 tokens, $0.0000\n',
    );
  });

  it('--output-format stream-json sends each child event flat, with a parent field', async () => {
    twoChildren();
    const r = await tea(['-p', 'check both parts', '--output-format', 'stream-json']);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown> & { type: string });
    expect(events.some((e) => e.type === 'subagent')).toBe(false);
    const nested = events.filter((e) => e.parent !== undefined);
    const delegate = events.find(
      (e) => e.type === 'tool_update' && (e.record as { name: string }).name === 'delegate_tasks',
    )!;
    const callId = (delegate.record as { call_id: string }).call_id;
    const texts = nested.filter((e) => e.type === 'text_delta');
    expect(texts.map((e) => e.text).join('')).toContain('SECRET ANSWER');
    for (const e of nested) {
      expect(e.parent).toEqual({
        call_id: callId,
        session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        label: expect.stringMatching(/^general #[12]$/),
        role: 'general',
        depth: 1,
      });
    }
    expect(new Set(nested.map((e) => (e.parent as { session_id: string }).session_id)).size).toBe(2);
    const kinds = new Set(nested.map((e) => e.type));
    for (const k of ['turn_start', 'text_delta', 'tool_update', 'usage', 'done']) expect(kinds).toContain(k);
    // The parent's own text has no parent field.
    const own = events.filter((e) => e.type === 'text_delta' && e.parent === undefined);
    expect(own.map((e) => e.text).join('')).toBe('Both parts are fine.');
    const done = events.at(-1)!;
    expect(done.type).toBe('done');
    expect(done.subagents).toEqual({
      count: 2,
      usage: { input_tokens: 600, output_tokens: 60 },
      cost_usd: 0,
    });
  });

  it('--output-format json has the sub-agents’ share of the usage', async () => {
    twoChildren();
    const r = await tea(['-p', 'check both parts', '--output-format', 'json']);
    const out = JSON.parse(r.stdout);
    expect(out.usage).toEqual({ input_tokens: 710, output_tokens: 71 });
    expect(out.subagents).toEqual({ count: 2, usage: { input_tokens: 600, output_tokens: 60 }, cost_usd: 0 });
  });

  it('says when a child ran out of its budget or time', async () => {
    let loops = 0;
    t.server.respond((body) => {
      if (isChild(body)) {
        if (firstUser(body).includes('part 2')) return reply().text('thinking slowly').hangAfter(1);
        loops++;
        return reply()
          .toolCall('glob', { pattern: `*${loops}*` })
          .usage(1000, 100);
      }
      if (isFirstCall(body))
        return reply().toolCall('delegate_tasks', {
          tasks: [task(1, { max_tokens: 2500 }), task(2, { timeout_s: 0.3 })],
        });
      return reply().text('One ran out of budget, one of time.');
    });
    const r = await tea(['-p', 'go']);
    expect(r.stdout).toBe('One ran out of budget, one of time.\n');
    expect(linesOf(r.stderr, 'general #1').at(-1)).toBe('◼ general #1 · budget · 3,300 tokens');
    expect(linesOf(r.stderr, 'general #2').at(-1)).toBe('◼ general #2 · timeout · 0 tokens');
    // A stop is reported once, with its cause: no "cancelled" or "stopping" line first.
    expect(linesOf(r.stderr, 'general #2')).toHaveLength(2);
  });

  it('names the child whose write was refused (nobody can approve in tea -p)', async () => {
    t.server.respond((body) => {
      if (isChild(body))
        return isFirstCall(body)
          ? reply().toolCall('write_file', { path: 'out.txt', content: 'x' })
          : reply().text('could not write');
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { role: 'coder' }));
      return reply().text('The child could not write.');
    });
    const r = await tea(['-p', 'delegate a write', '--permission-mode', 'ask']);
    expect(r.stderr).toMatch(/tea: refused write_file \(out\.txt\) \(by coder #1\): needs approval/);
    expect(r.code).toBe(5);
    expect(existsSync(path.join(t.ctx.work, 'out.txt'))).toBe(false);
    const childCalls = t.server.requests.filter((q) => isChild(q.body));
    expect(wireMessages(childCalls.at(-1)!.body).some((m) => m.role === 'tool')).toBe(true);
  });
});

describe('tea sessions with sub-agents', () => {
  it('lists only top-level sessions with a count of sub-agents, and shows children and a child’s transcript', async () => {
    twoChildren();
    const run = await tea(['-p', 'check both parts', '--output-format', 'json']);
    const parentId = JSON.parse(run.stdout).session_id as string;

    const list = await tea(['sessions', 'list']);
    const lines = list.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${parentId.slice(0, 8)} .* 2 sub-agents$`));
    const json = JSON.parse((await tea(['sessions', 'list', '--json'])).stdout);
    expect(json.sessions.map((r: { id: string; subagents: number }) => [r.id, r.subagents])).toEqual([
      [parentId, 2],
    ]);

    const show = await tea(['sessions', 'show', parentId.slice(0, 8)]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(
      '  usage: 710 in / 71 out tokens, $0.0000; of which 2 sub-agents: 660 tokens, $0.0000\n',
    );
    const children = [
      ...show.stdout.matchAll(
        /^ {4}(general #\d) \(general\) · done · 330 tokens · check part \d {2}tea sessions show ([0-9a-f]{8})$/gm,
      ),
    ];
    expect(children.map((m) => m[1]).sort()).toEqual(['general #1', 'general #2']);

    const child = await tea(['sessions', 'show', children[0]![2]!]);
    expect(child.code).toBe(0);
    expect(child.stdout).toMatch(
      new RegExp(`  sub-agent of: ${parentId} \\(call call_scripted_\\d+\\) · role general · depth 1\n`),
    );
    expect(child.stdout).toContain(`  parent's transcript: tea sessions show ${parentId.slice(0, 8)}\n`);
    expect(child.stdout).toMatch(/\[1\] user:\n## Your task\nCheck part \d and report\./);
    expect(child.stdout).toMatch(/CHILD \d SECRET ANSWER/);
    expect(child.stdout).toContain('  usage: 300 in / 30 out tokens, $0.0000\n');
  });
});

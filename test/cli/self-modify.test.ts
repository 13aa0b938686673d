/**
 * self_modify through the built `tea`: listed (`tea tools list`, `tea tools show`) only
 * in Tea's own repository; elsewhere absent, and a scripted model that calls it
 * gets the unknown-tool error.
 */
import { describe, expect, it } from 'vitest';
import { useFixture } from '../evolve/self/cases.js';
import { copyRepo } from '../evolve/self/fixture.js';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const fx = useFixture();
const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

describe('tea and self_modify', () => {
  it('tea tools list/show name self_modify only inside Tea’s own repository', async () => {
    const outside = await runTea(['tools', 'list'], { env: t.ctx.env, cwd: t.ctx.work });
    expect(outside.code).toBe(0);
    expect(outside.stdout).not.toContain('self_modify');
    expect(outside.stdout).not.toMatch(/^evolve$/m);
    const shown = await runTea(['tools', 'show', 'self_modify'], { env: t.ctx.env, cwd: t.ctx.work });
    expect(shown.code).not.toBe(0);
    expect(shown.stderr).toContain('unknown tool "self_modify"');

    const root = copyRepo(fx.template, fx.dir);
    const inside = await runTea(['tools', 'list'], { env: t.ctx.env, cwd: root });
    expect(inside.stdout).toMatch(/^evolve\n {4}self_modify +exec +Change Tea Agent's own source/m);
    const json = JSON.parse(
      (await runTea(['tools', 'show', 'self_modify', '--json'], { env: t.ctx.env, cwd: root })).stdout,
    );
    expect(json).toMatchObject({ name: 'self_modify', approval: 'exec', core: false });
    expect(json.parameters.required).toEqual(['reason', 'patch']);
  });

  it('a scripted model calling self_modify outside gets an unknown-tool error', async () => {
    t.server.script(
      reply().toolCall('self_modify', { reason: 'improve', patch: '--- a/x\n+++ b/x\n' }),
      reply().text('Not available here.'),
    );
    const r = await runTea(['-p', 'improve your own code', '--yolo'], { env: t.ctx.env, cwd: t.ctx.work });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('Not available here.');
    const last = wireMessages(t.server.requests.at(-1)!.body);
    const result = wireText(last.find((m) => m.role === 'tool')!);
    expect(result).toMatch(
      /^\[ERROR\] Unknown tool "self_modify"\. (Did you mean: |No tool has a similar name)/,
    );
    expect(result.replace('"self_modify"', '')).not.toContain('self_');
    expect(wireText(wireMessages(t.server.requests[0]!.body)[0]!)).not.toContain('Self-evolution');
  });
});

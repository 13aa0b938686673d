/**
 * The session's side of the skills hook when it offers more than a block: its tools are
 * offered from the first request (as if loaded), and its read roots let the file tools
 * read (not write) there for that prompt only. An empty block offers no tools.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvolveHooks, SkillsOffer } from '../../src/agent/evolve-hooks.js';
import { collect } from '../support/collect.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

let h: Harness;
let outside: string;
beforeEach(async () => {
  h = await createHarness();
  outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tea-offer-')));
  mkdirSync(path.join(outside, 'refs'));
  writeFileSync(path.join(outside, 'refs', 'guide.md'), 'GUIDE-TEXT');
});
afterEach(async () => {
  await h.close();
  rmSync(outside, { recursive: true, force: true });
});

const offered = (i: number) =>
  (h.server.requests[i]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
const results = (i: number) =>
  wireMessages(h.server.requests[i]!.body)
    .filter((m) => m.role === 'tool')
    .map(wireText);

describe('a skills offer in a session', () => {
  it('offers its tools from the first request and lets file tools read, not write, its roots for that prompt', async () => {
    const offers: SkillsOffer[] = [
      { block: '- guide: a guide', tools: ['current_time'], readRoots: [outside] },
      { block: '' },
    ];
    const hooks: EvolveHooks = { skills: async () => offers.shift() ?? { block: '' } };
    const agent = h.agent({ evolve: hooks, settings: { toolLoading: 'intent', permissionMode: 'yolo' } });
    const session = agent.newSession();
    const guide = path.join(outside, 'refs', 'guide.md');
    h.server.script(
      reply().toolCall('read_file', { path: guide }),
      reply().toolCall('write_file', { path: guide, content: 'x' }),
      reply().text('done'),
    );
    await collect(session.prompt('use the guide'));
    expect(offered(0)).toContain('current_time');
    expect(wireText(wireMessages(h.server.requests[0]!.body)[0]!)).toContain('## Skills\n\n- guide: a guide');
    const [read, wrote] = results(2);
    expect(read).toContain('GUIDE-TEXT');
    expect(wrote).toMatch(/^\[ERROR\] Refusing to change .*skill's folder/);

    // The next prompt is offered nothing: the folder is outside again.
    h.server.script(reply().toolCall('read_file', { path: guide }), reply().text('gone'));
    await collect(session.prompt('again'));
    expect(results(4).at(-1)).toMatch(/^\[ERROR\] Path .* is outside the workspace/);
    expect(wireText(wireMessages(h.server.requests[3]!.body)[0]!)).not.toContain('## Skills');
  });

  it('an empty block offers no tools', async () => {
    const hooks: EvolveHooks = { skills: async () => ({ block: '', tools: ['current_time'] }) };
    h.server.script(reply().text('ok'));
    await collect(
      h
        .agent({ evolve: hooks, settings: { toolLoading: 'intent' } })
        .newSession()
        .prompt('hi'),
    );
    expect(offered(0)).not.toContain('current_time');
  });
});

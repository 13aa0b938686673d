/**
 * Work modes in a session, against the scripted model server: what each built-in mode
 * offers and refuses on the wire, its prompt line and permission mode, the first
 * request's budget in every mode, a call outside the mode, and the mode kept across a
 * resume with the permission-mode rules of a switch.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { encode } from 'gpt-tokenizer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionSystemPrompt } from '../../src/agent/prompt.js';
import { agentSettings } from '../../src/agent/settings.js';
import { BUILTIN_WORK_MODES, modeOffers, WorkModeSet } from '../../src/agent/work-modes.js';
import { CORE_TOOLS, FIRST_REQUEST_TOKENS } from '../../src/tools/loading.js';
import { collect } from '../support/collect.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const offered = (i: number) =>
  (h.server.requests[i]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
const systemAt = (i: number) => wireText(wireMessages(h.server.requests[i]!.body)[0]!);
const intent = (permissionMode: 'ask' | 'yolo' = 'ask') =>
  h.agent({ settings: { toolLoading: 'intent', permissionMode } });
const mode = (name: string) => BUILTIN_WORK_MODES.find((m) => m.name === name)!;

/** What each built-in mode must offer on the first request, and what it must not. */
const TABLE: Array<{ name: string; permission: string; offers: string[]; refuses: string[] }> = [
  {
    name: 'design',
    permission: 'read-only',
    offers: ['read_file', 'grep', 'tree', 'plan'],
    refuses: ['write_file', 'edit_file', 'bash'],
  },
  { name: 'develop', permission: 'ask', offers: [...CORE_TOOLS], refuses: [] },
  { name: 'test', permission: 'ask', offers: [...CORE_TOOLS], refuses: [] },
  {
    name: 'review',
    permission: 'read-only',
    offers: ['read_file', 'git_diff', 'git_status'],
    refuses: ['write_file', 'edit_file', 'bash'],
  },
  {
    name: 'docs',
    permission: 'auto-edit',
    offers: ['read_file', 'write_file', 'edit_file', 'glob'],
    refuses: ['bash'],
  },
  {
    name: 'devops',
    permission: 'ask',
    offers: ['bash', 'bg_start', 'bg_output'],
    refuses: [],
  },
];

describe('built-in work modes on the wire', () => {
  it.each(TABLE)(
    '$name: its line, its tools, its permission mode, within the first-request budget',
    async (row) => {
      h.server.script(reply().text('ok'));
      const session = intent().newSession();
      if (row.name !== 'develop') session.setWorkMode(row.name);
      expect(session.workMode).toBe(row.name);
      expect(session.permissionMode).toBe(row.permission);
      await collect(session.prompt('hi'));
      const system = systemAt(0);
      expect(system).toContain(`\nWork mode: ${row.name} — ${mode(row.name).prompt}`);
      expect(system).toContain(`\nPermission mode: ${row.permission}`);
      const names = offered(0);
      expect(names).toEqual(expect.arrayContaining(row.offers));
      for (const name of row.refuses) {
        expect(names).not.toContain(name);
        // Not in the catalogue either: tool_search cannot find it.
        expect(system).not.toMatch(new RegExp(`More tools[^\\n]* ${name}( |$)`, 'm'));
      }
      // Every tool offered is one the mode allows.
      for (const name of names) expect(modeOffers(mode(row.name), h.tools.get(name)!)).toBe(true);
      const body = h.server.requests[0]!.body;
      const tokens = encode(system).length + encode(JSON.stringify(body.tools)).length;
      expect(tokens).toBeLessThanOrEqual(FIRST_REQUEST_TOKENS);
    },
  );

  it('develop leaves the request as it was but for the one mode line', async () => {
    h.server.script(reply().text('ok'));
    const session = intent().newSession();
    await collect(session.prompt('hi'));
    const before = sessionSystemPrompt(
      agentSettings({ toolLoading: 'intent', permissionMode: 'ask' }),
      h.workspace,
      h.tools,
    );
    const line = `\nWork mode: develop — ${mode('develop').prompt}`;
    const withoutLine = systemAt(0).replace(line, '');
    expect(systemAt(0)).not.toBe(withoutLine);
    expect(withoutLine.startsWith(before)).toBe(true);
    expect(offered(0).sort()).toEqual([...CORE_TOOLS].sort());
  });
});

describe('a call outside the mode', () => {
  it('review refuses write_file with an [ERROR] naming the mode and the switch; nothing is written', async () => {
    h.server.script(
      reply().toolCall('write_file', { path: 'notes.md', content: 'x' }),
      reply().text('I cannot write in review mode.'),
    );
    const session = intent('yolo').newSession();
    session.setWorkMode('review');
    await collect(session.prompt('write notes.md'));
    const result = wireMessages(h.server.requests[1]!.body).find((m) => m.role === 'tool')!;
    expect(wireText(result)).toBe(
      '[ERROR] write_file is not available in the "review" work mode.\nHint: use the tools this mode offers; if the task needs it, say so: the user can switch with `/mode develop` (or the mode selector), which offers it',
    );
    expect(existsSync(path.join(h.workspace, 'notes.md'))).toBe(false);
    expect(h.store.toolCalls.list(session.id)[0]).toMatchObject({ name: 'write_file', state: 'error' });
  });

  it('docs refuses bash (no shell there) but writes files without asking', async () => {
    h.server.script(
      reply()
        .toolCall('bash', { command: 'touch ran' })
        .toolCall('write_file', { path: 'README.md', content: '# Hi\n' }),
      reply().text('done'),
    );
    const session = intent('ask').newSession();
    session.setWorkMode('docs');
    await collect(session.prompt('document it'));
    const results = wireMessages(h.server.requests[1]!.body)
      .filter((m) => m.role === 'tool')
      .map(wireText);
    expect(results[0]).toMatch(/^\[ERROR\] bash is not available in the "docs" work mode\./);
    expect(results[1]).not.toMatch(/ERROR/);
    expect(existsSync(path.join(h.workspace, 'ran'))).toBe(false);
    expect(existsSync(path.join(h.workspace, 'README.md'))).toBe(true);
  });

  it('the same call runs in develop', async () => {
    h.server.script(reply().toolCall('write_file', { path: 'notes.md', content: 'x' }), reply().text('ok'));
    const session = intent('yolo').newSession();
    await collect(session.prompt('write notes.md'));
    expect(existsSync(path.join(h.workspace, 'notes.md'))).toBe(true);
  });
});

describe('switching and resuming', () => {
  it('keeps the mode across a resume; a switch sets its permission mode, an explicit change holds until the next switch', async () => {
    const agent = intent('ask');
    const session = agent.newSession();
    session.setWorkMode('review');
    expect(session.permissionMode).toBe('read-only');
    const resumed = agent.resumeSession(session.id);
    expect(resumed.workMode).toBe('review');
    expect(resumed.permissionMode).toBe('read-only');
    resumed.setPermissionMode('ask');
    h.server.script(reply().text('ok'));
    await collect(resumed.prompt('look'));
    expect(resumed.permissionMode).toBe('ask');
    expect(systemAt(0)).toContain('\nPermission mode: ask');
    resumed.setWorkMode('develop');
    expect(resumed.permissionMode).toBe('ask'); // develop: the configured mode
    resumed.setWorkMode('devops');
    expect(resumed.permissionMode).toBe('ask');
    resumed.setWorkMode('docs');
    expect(resumed.permissionMode).toBe('auto-edit');
  });

  it('a live session takes up a switch stored by another runner at its next prompt', async () => {
    const agent = intent('ask');
    const live = agent.newSession();
    agent.resumeSession(live.id).setWorkMode('review');
    expect(live.workMode).toBe('develop');
    h.server.script(reply().text('ok'));
    await collect(live.prompt('look'));
    expect(live.workMode).toBe('review');
    expect(systemAt(0)).toContain('\nWork mode: review — ');
    expect(offered(0)).not.toContain('bash');
  });

  it('refuses an unknown mode, naming the ones there are', () => {
    const session = intent().newSession();
    expect(() => session.setWorkMode('ship')).toThrow(
      'unknown work mode "ship": use one of design, develop, test, review, docs, devops',
    );
    expect(session.workMode).toBe('develop');
  });

  it('starts in the set’s default mode, and falls back to it for a stored mode the set no longer has', async () => {
    const custom = new WorkModeSet(
      [
        ...BUILTIN_WORK_MODES,
        { name: 'triage', description: 't', prompt: 'Sort the issues.', tools: ['read'] },
      ],
      'review',
    );
    const agent = h.agent({ settings: { toolLoading: 'intent', permissionMode: 'ask', workModes: custom } });
    const session = agent.newSession();
    expect(session.workMode).toBe('review');
    session.setWorkMode('triage');
    expect(session.permissionMode).toBe('ask');
    expect(intent().resumeSession(session.id).workMode).toBe('develop');
    expect(new WorkModeSet(BUILTIN_WORK_MODES).next('devops').name).toBe('design');
  });
});

describe('break-in attempts at the mode boundary', () => {
  it('tool_search cannot find or load a tool the mode refuses, by intent or by name', async () => {
    h.server.script(
      reply().toolCall('tool_search', {
        query: 'run a shell command',
        names: ['bash', 'write_file', 'git_commit'],
      }),
      reply().toolCall('bash', { command: 'touch pwned' }),
      reply().text('done'),
    );
    const session = intent('yolo').newSession();
    session.setWorkMode('review');
    await collect(session.prompt('run things'));
    const found = wireMessages(h.server.requests[1]!.body).find((m) => m.role === 'tool')!;
    // The view does not know them: they are unknown names there, never listed as loaded.
    expect(wireText(found)).toContain('unknown names: bash, write_file, git_commit');
    expect(wireText(found)).not.toMatch(/^- (bash|write_file|git_commit) \(/m);
    for (const i of [1, 2])
      for (const name of ['bash', 'write_file', 'git_commit']) expect(offered(i)).not.toContain(name);
    const refused = wireMessages(h.server.requests[2]!.body)
      .filter((m) => m.role === 'tool')
      .at(-1)!;
    expect(wireText(refused)).toMatch(/^\[ERROR\] bash is not available in the "review" work mode\./);
    expect(existsSync(path.join(h.workspace, 'pwned'))).toBe(false);
  });

  it('a tool loaded in develop is not offered or callable after a switch to review', async () => {
    h.server.script(
      reply().text('ok'),
      reply().toolCall('git_commit', { message: 'sneak' }),
      reply().text('no'),
    );
    const session = intent('yolo').newSession();
    await collect(session.prompt('show me the git commit tool'));
    expect(offered(0)).toContain('git_commit');
    session.setWorkMode('review');
    await collect(session.prompt('commit it'));
    expect(offered(1)).not.toContain('git_commit');
    const result = wireMessages(h.server.requests[2]!.body)
      .filter((m) => m.role === 'tool')
      .at(-1)!;
    expect(wireText(result)).toMatch(/^\[ERROR\] git_commit is not available in the "review" work mode\./);
  });

  it.each([
    ['.*', 'read_file', false],
    ['(a+)+$', 'read_file', false],
    ['read_*', 'read_file', true],
    ['read_*', 'write_file', false],
    ['*_file', 'write_file', true],
    ['read', 'bash', false],
    ['read', 'read_file', true],
    ['files', 'write_file', true],
    ['__proto__', 'read_file', false],
    ['constructor', 'read_file', false],
  ])('selector %j picks %s: %s', (selector, name, picked) => {
    const mode = { name: 'x', description: 'x', prompt: 'x', tools: [selector] };
    expect(modeOffers(mode, h.tools.get(name)!)).toBe(picked);
  });

  it('unknown and hostile names are refused without a switch', () => {
    const session = intent().newSession();
    for (const name of [
      '',
      'REVIEW',
      'review ',
      '__proto__',
      'constructor',
      'read-only',
      '../develop',
      'x'.repeat(500),
    ])
      expect(() => session.setWorkMode(name), name).toThrow(/unknown work mode/);
    expect(session.workMode).toBe('develop');
    expect(session.permissionMode).toBe('ask');
  });
});

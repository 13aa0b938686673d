import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILTIN_INSTRUCTIONS } from '../../src/agent/prompt.js';
import { cleanRevision, evolveCandidate, evolvePrompt } from '../../src/evolve/prompts/evolve.js';
import { PromptVersions } from '../../src/evolve/prompts/service.js';
import type { EvaluationSource } from '../../src/evolve/types.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { seedMemory } from './helpers.js';

const REVISION = [
  'You are Tea Agent, an AI agent working on the user’s machine.',
  'Act with tools; run the tests before you say a fix works, and check every result.',
  'Never invent file contents, paths or results.',
].join('\n');

const NOW = Date.UTC(2025, 5, 1);
const DAY = 86_400_000;

describe('prompt evolution', () => {
  let h: Harness;
  let versions: PromptVersions;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.server.reset();
    h.store.db.exec('DELETE FROM memories; DELETE FROM prompt_versions;');
    versions = new PromptVersions(h.store.prompts);
  });

  it('the prompt carries the current text, the material and the guard’s essentials', () => {
    const p = evolvePrompt({
      current: 'CURRENT TEXT',
      evaluations: [{ outcome: 'failed', input: 'fix the parser', signals: { tests: 'failed', errors: 2 } }],
      lessons: [{ id: 1, content: 'Run the tests first.', scope: 'user', createdAt: 0 }],
      reflections: [],
    });
    expect(p.system).toMatch(/at most 150 words/);
    expect(p.system).toMatch(/act with its tools; to verify or check the results; never to invent/);
    expect(p.user).toContain('# Current instructions\nCURRENT TEXT');
    expect(p.user).toContain('- failed: fix the parser (tests=failed, errors=2)');
    expect(p.user).toContain('# Lessons from failures\n- Run the tests first.');
    expect(p.user).toContain('# Reflections\n(none)');
  });

  it.each([
    ['```\nA\nB\n```', 'A\nB'],
    ['```markdown\nA\n```', 'A'],
    ['Revised instructions:\nA', 'A'],
    ['## New instructions\nA', 'A'],
    ['  A  ', 'A'],
  ])('cleans %j', (raw, clean) => {
    expect(cleanRevision(raw)).toBe(clean);
  });

  it('stores the cheap model’s revision as a candidate that is not active', async () => {
    seedMemory(h.store.db, {
      content: 'Claimed a fix works without running tests.',
      category: 'lesson',
      at: NOW - DAY,
    });
    seedMemory(h.store.db, {
      content: 'An old lesson, out of the window.',
      category: 'lesson',
      at: NOW - 90 * DAY,
    });
    seedMemory(h.store.db, {
      content: 'A forgotten lesson.',
      category: 'lesson',
      at: NOW - DAY,
      deleted: true,
    });
    seedMemory(h.store.db, {
      content: 'The user works in TypeScript.',
      category: 'general',
      tags: ['reflection'],
      at: NOW - 2 * DAY,
    });
    h.server.script(reply().text(`\`\`\`\n${REVISION}\n\`\`\``));
    const out = await evolveCandidate({ versions, db: h.store.db, provider: () => h.provider, now: NOW });
    expect(out.material).toEqual({ evaluations: 0, lessons: 1, reflections: 1 });
    expect(out.candidate).toMatchObject({
      version: 2,
      status: 'candidate',
      source: 'evolve',
      content: REVISION,
    });
    expect(out.candidate.note).toMatch(
      /evolved from 0 evaluations, 1 lessons, 1 reflections by scripted-model/,
    );
    expect(versions.active()).toMatchObject({ version: 1, content: BUILTIN_INSTRUCTIONS });
    const [system, user] = wireMessages(h.server.requests[0]!.body).map(wireText);
    expect(system).toContain('You improve the standing instructions');
    expect(user).toContain(BUILTIN_INSTRUCTIONS);
    expect(user).toContain('Claimed a fix works without running tests.');
    expect(user).toContain('The user works in TypeScript.');
    expect(user).not.toContain('out of the window');
    expect(user).not.toContain('forgotten');
  });

  it('reads task evaluations from a source, failures first', async () => {
    const source: EvaluationSource = {
      recent: async () => [
        { outcome: 'succeeded', input: 'rename a function', signals: {} },
        { outcome: 'abandoned', input: 'set up CI', signals: { reaction: 'gave up' } },
      ],
      counts: async () => ({}),
    };
    h.server.script(reply().text(REVISION));
    const out = await evolveCandidate({
      versions,
      db: h.store.db,
      provider: () => h.provider,
      evaluations: source,
      now: NOW,
    });
    expect(out.material.evaluations).toBe(2);
    const user = wireText(wireMessages(h.server.requests[0]!.body)[1]!);
    expect(user.indexOf('abandoned: set up CI')).toBeLessThan(user.indexOf('succeeded: rename a function'));
  });

  it('with nothing to learn from, asks no model and stores nothing', async () => {
    await expect(
      evolveCandidate({ versions, db: h.store.db, provider: () => h.provider, now: NOW }),
    ).rejects.toMatchObject({
      code: 'no_material',
      message: expect.stringMatching(/nothing to learn from yet/),
    });
    expect(h.server.requests).toHaveLength(0);
    expect(h.store.prompts.list()).toEqual([]);
  });

  it.each([
    ['drops the tools', 'Be helpful. Check results. Never invent anything.', /act with its tools/],
    ['is too long', `${REVISION}\n${'Also be careful. '.repeat(60)}`, /words; the limit is 150/],
    ['repeats the active text', BUILTIN_INSTRUCTIONS, /the active one, already/],
  ])('refuses a revision that %s and stores nothing', async (_what, text, expected) => {
    seedMemory(h.store.db, { content: 'A lesson.', category: 'lesson', at: NOW - DAY });
    h.server.script(reply().text(text));
    await expect(
      evolveCandidate({ versions, db: h.store.db, provider: () => h.provider, now: NOW }),
    ).rejects.toThrow(expected);
    expect(h.store.prompts.list()).toEqual([]);
  });
});

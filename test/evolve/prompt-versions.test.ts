import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILTIN_INSTRUCTIONS, defaultSystemPrompt } from '../../src/agent/prompt.js';
import { countWords, MAX_CHARS, MAX_WORDS, promptProblems } from '../../src/evolve/prompts/guard.js';
import { PromptVersions } from '../../src/evolve/prompts/service.js';
import { Store } from '../../src/store/index.js';

const GOOD = [
  'You are Tea Agent.',
  'Act with your tools; verify each result by running or reading it.',
  'Never invent file contents, paths or results.',
].join('\n');

describe('the guard on prompt versions', () => {
  it('passes the built-in text and a Chinese version', () => {
    expect(promptProblems(BUILTIN_INSTRUCTIONS)).toEqual([]);
    expect(promptProblems('你是 Tea Agent。用工具完成任务，并检查结果。不要编造文件内容或结果。')).toEqual(
      [],
    );
  });

  // Each break-in attempt and the words the refusal must contain (what to fix).
  it.each([
    ['empty', '   \n ', /empty/],
    ['too many words', `${GOOD}\n${'word '.repeat(MAX_WORDS)}`, new RegExp(`limit is ${MAX_WORDS}`)],
    ['too many characters', `${GOOD}\n${'x'.repeat(MAX_CHARS)}`, new RegExp(`limit is ${MAX_CHARS}`)],
    ['no tools', 'Plan, then act. Verify results. Never invent anything.', /act with its tools/],
    ['no verifying', 'Use your tools to finish. Never invent anything.', /verify or check/],
    ['inventing allowed', 'Use tools. Check results. Feel free to guess paths.', /never to invent/],
    ['a generated line', `${GOOD}\nWorking directory: /etc`, /"Working directory:" line/],
    ['a permission line', `${GOOD}\npermission mode: yolo`, /"permission mode:" line/i],
    ['a NUL byte', `${GOOD}\u0000`, /NUL/],
  ])('refuses %s', (_what, text, expected) => {
    const problems = promptProblems(text);
    expect(problems.join('\n')).toMatch(expected);
  });

  it.each([
    "Use your tools and check the results. Don't invent results.",
    'Use your tools and check the results. Do not make things up.',
    'Use your tools and verify. Never fabricate paths.',
    'Act with tools, confirm each result, and never guess file contents.',
  ])('takes the essentials in other words: %s', (text) => {
    expect(promptProblems(text)).toEqual([]);
  });

  it('counts words in English and CJK', () => {
    expect(countWords('Read before you edit')).toBe(4);
    expect(countWords('使用工具')).toBe(4);
    expect(countWords("don't guess — check")).toBe(3);
  });
});

describe('PromptVersions', () => {
  let store: Store;
  let told: Array<string | undefined>;
  let versions: PromptVersions;
  beforeEach(() => {
    store = Store.open(':memory:');
    told = [];
    versions = new PromptVersions(store.prompts, (text) => told.push(text));
  });
  afterEach(() => store.close());

  it('with nothing stored, lists the built-in text as version 1, active, implicit', () => {
    expect(versions.list()).toEqual([
      expect.objectContaining({ version: 1, source: 'builtin', status: 'active', stored: false }),
    ]);
    expect(versions.get(1).content).toBe(BUILTIN_INSTRUCTIONS);
    expect(versions.active().content).toBe(BUILTIN_INSTRUCTIONS);
    expect(store.prompts.list()).toEqual([]);
  });

  it('set makes an active version; rollback walks back the chain to the built-in text, then refuses', () => {
    const v2 = versions.set(GOOD, { note: 'first' });
    const v3 = versions.set(`${GOOD}\nKeep answers short.`);
    expect([v2.version, v3.version, v3.parentVersion]).toEqual([2, 3, 2]);
    expect(told).toEqual([GOOD, `${GOOD}\nKeep answers short.`]);
    expect(versions.rollback()).toMatchObject({ from: { version: 3 }, to: { version: 2, status: 'active' } });
    expect(versions.rollback().to).toMatchObject({
      version: 1,
      source: 'builtin',
      content: BUILTIN_INSTRUCTIONS,
    });
    // The built-in version tells the runtime "no override".
    expect(told.at(-1)).toBeUndefined();
    expect(() => versions.rollback()).toThrow(/nothing to roll back to/);
    // Rollback to a named version.
    expect(versions.rollback(3).to.version).toBe(3);
    expect(
      versions
        .list()
        .filter((v) => v.status === 'active')
        .map((v) => v.version),
    ).toEqual([3]);
  });

  it('a candidate is not active, cannot be rolled back to, and is promoted by activate', () => {
    const c = versions.propose(GOOD, 'evolved');
    expect(c).toMatchObject({ version: 2, status: 'candidate', source: 'evolve', parentVersion: 1 });
    expect(versions.active().version).toBe(1);
    expect(told).toEqual([]);
    expect(() => versions.rollback(2)).toThrow(/candidate that was never active: promote it/);
    expect(versions.activate(2).status).toBe('active');
    expect(told).toEqual([GOOD]);
  });

  it('diff is a unified diff between versions (default: to the active one), empty when equal', () => {
    versions.set(GOOD);
    const patch = versions.diff(1);
    expect(patch).toMatch(/^--- v1\n\+\+\+ v2\n@@ /);
    expect(patch).toContain('+Never invent file contents, paths or results.');
    expect(patch).toContain(`-${BUILTIN_INSTRUCTIONS.split('\n')[0]}`);
    expect(versions.diff(2, 2)).toBe('');
  });

  it('refuses what the guard refuses unless forced, and says how to force', () => {
    expect(() => versions.set('Just chat.')).toThrow(/refused: .*tools.*--force/);
    expect(store.prompts.list()).toEqual([]);
    expect(versions.set('Just chat.', { force: true }).content).toBe('Just chat.');
    expect(() => versions.set('', { force: true })).toThrow(/empty/);
    // Candidates are never forced.
    expect(() => versions.propose('Just chat again.', 'x')).toThrow(/revision was refused/);
  });

  it('setting the active text again changes nothing', () => {
    expect(() => versions.set(`${BUILTIN_INSTRUCTIONS}\n`)).toThrow(/version 1, the active one, already/);
    versions.set(GOOD);
    expect(() => versions.set(`  ${GOOD}  \r\n`)).toThrow(/version 2, the active one/);
  });

  it.each([
    [0, /whole number from 1/],
    [1.5, /whole number from 1/],
    [-3, /whole number from 1/],
    [99, /no prompt version 99: there is version 1/],
  ])('get(%s) fails clearly', (v, expected) => {
    expect(() => versions.get(v)).toThrow(expected);
  });

  it('the default system prompt keeps its generated lines after any version', () => {
    const text = defaultSystemPrompt({ cwd: '/w', instructions: GOOD, now: new Date('2025-02-03') });
    expect(text.startsWith(`${GOOD}\n\nWorking directory: /w\nPlatform: `)).toBe(true);
    expect(text).toContain('Date: 2025-02-03');
  });
});

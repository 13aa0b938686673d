import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { directoryInventory } from '../../src/evolve/upkeep/inventory.js';
import { ownRepoRoot } from '../../src/evolve/upkeep/own-repo.js';
import { renderReference, type ToolDoc, typeOf, writeReference } from '../../src/evolve/upkeep/reference.js';
import { lastUpkeep, runUpkeep } from '../../src/evolve/upkeep/run.js';
import { median, skillsUsed, toolUsage } from '../../src/evolve/usage.js';
import { Store } from '../../src/store/index.js';
import { teaLayout } from '../support/tea-repo.js';
import { seedToolCall } from './helpers.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2025, 5, 1);

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'tea-upkeep-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function mkdir(...parts: string[]): string {
  const dir = path.join(root, ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A folder last changed `daysAgo` days before NOW. */
function aged(dir: string, daysAgo: number): void {
  const at = new Date(NOW - daysAgo * DAY);
  for (const f of [dir, ...readdir(dir)]) utimesSync(f, at, at);
}
const readdir = (dir: string) => readdirSync(dir).map((n) => path.join(dir, n));

const doc = (over: Partial<ToolDoc>): ToolDoc => ({
  name: 't',
  category: 'files',
  description: 'Does t.',
  approval: 'none',
  readOnly: true,
  concurrencySafe: true,
  parameters: { type: 'object', properties: {} },
  ...over,
});

describe('tool usage from the stored calls', () => {
  let store: Store;
  beforeEach(() => {
    store = Store.open(':memory:');
  });
  afterEach(() => store.close());

  it('counts calls, errors and refusals per tool, with the median time, inside the window only', () => {
    for (const ms of [10, 30, 20]) seedToolCall(store.db, { name: 'grep', at: NOW - DAY, durationMs: ms });
    seedToolCall(store.db, { name: 'bash', at: NOW - DAY, status: 'error', durationMs: 100 });
    seedToolCall(store.db, { name: 'bash', at: NOW - DAY, status: 'denied', durationMs: null });
    seedToolCall(store.db, { name: 'bash', at: NOW - 2 * DAY, durationMs: 300 });
    seedToolCall(store.db, { name: 'old_tool', at: NOW - 40 * DAY });
    const usage = toolUsage(store.db, { since: NOW - 30 * DAY });
    expect(usage.map((u) => [u.name, u.calls, u.errors, u.denied, u.medianMs])).toEqual([
      ['bash', 3, 1, 1, 200],
      ['grep', 3, 0, 0, 20],
    ]);
    expect(median([])).toBeNull();
  });

  it('counts skills by the skill tool’s name argument, ignoring failed calls and calls without a usable name', () => {
    for (const args of [{ name: 'pdf' }, { name: 'pdf' }, { name: 'review' }, { name: 7 }, {}])
      seedToolCall(store.db, { name: 'skill', at: NOW - DAY, args });
    // A misspelt name is an error result: nothing was loaded.
    seedToolCall(store.db, { name: 'skill', at: NOW - DAY, args: { name: 'pdf_tools' }, status: 'error' });
    expect(skillsUsed(store.db, { since: NOW - 30 * DAY }).map((s) => [s.name, s.calls])).toEqual([
      ['pdf', 2],
      ['review', 1],
    ]);
  });
});

describe('the tools reference', () => {
  it.each([
    [{ type: 'string' }, 'string'],
    [{ type: 'array', items: { type: 'integer' } }, 'integer[]'],
    [{ enum: ['a', 'b'] }, '"a" | "b"'],
    [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, 'string | null'],
    [{ type: ['string', 'null'] }, 'string | null'],
    [{ type: 'array', items: { enum: ['x', 'y'] } }, '("x" | "y")[]'],
    [{}, 'any'],
    [null, 'any'],
  ])('names the type of %j as %s', (schema, expected) => {
    expect(typeOf(schema)).toBe(expected);
  });

  it('groups by category, sorts, documents parameters (nested too), and is the same for any order', () => {
    const tools = [
      doc({
        name: 'write_file',
        category: 'files',
        approval: 'write',
        readOnly: false,
        description: 'Writes.',
      }),
      doc({
        name: 'edit_file',
        category: 'files',
        approval: 'write',
        parameters: {
          type: 'object',
          required: ['path', 'edits'],
          properties: {
            path: { type: 'string', description: 'The file | relative\nto the workspace' },
            edits: {
              type: 'array',
              items: { type: 'object', properties: { old: { type: 'string' }, new: { type: 'string' } } },
            },
            dry_run: { type: 'boolean', default: false },
          },
        },
      }),
      doc({ name: 'web_fetch', category: 'web', approval: 'network' }),
    ];
    const text = renderReference(tools);
    expect(renderReference([...tools].reverse())).toBe(text);
    expect(text).toMatch(/^# Tools\n/);
    expect(text).toContain('- [files](#files) (2)\n- [web](#web) (1)');
    expect(text.indexOf('### edit_file')).toBeLessThan(text.indexOf('### write_file'));
    expect(text.indexOf('## files')).toBeLessThan(text.indexOf('## web'));
    expect(text).toContain('| `path` | string | yes | The file \\| relative to the workspace |');
    expect(text).toContain('| `edits[].old` | string | no |  |');
    expect(text).toContain('| `dry_run` | boolean | no | (default: false) |');
    expect(text).toContain('Approval: `network` · read-only: yes');
    expect(text).toContain('No parameters.');
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(text.endsWith('\n\n')).toBe(false);
  });

  it('writes once, then leaves an unchanged file alone (same bytes, same mtime)', () => {
    const file = path.join(root, 'docs', 'TOOLS.md');
    expect(writeReference(file, 'A\n', root)).toBe('written');
    const old = new Date(NOW - DAY);
    utimesSync(file, old, old);
    expect(writeReference(file, 'A\n', root)).toBe('unchanged');
    expect(statSync(file).mtimeMs).toBe(old.getTime());
    expect(writeReference(file, 'B\n', root)).toBe('written');
    expect(readFileSync(file, 'utf8')).toBe('B\n');
  });

  it('refuses to write through a symbolic link (the file, or a folder leading outside)', () => {
    const outside = mkdir('outside');
    const repo = mkdir('repo');
    writeFileSync(path.join(outside, 'target.md'), 'keep');
    mkdirSync(path.join(repo, 'docs'));
    symlinkSync(path.join(outside, 'target.md'), path.join(repo, 'docs', 'TOOLS.md'));
    expect(() => writeReference(path.join(repo, 'docs', 'TOOLS.md'), 'X', repo)).toThrow(/symbolic link/);
    const repo2 = mkdir('repo2');
    symlinkSync(outside, path.join(repo2, 'docs'));
    expect(() => writeReference(path.join(repo2, 'docs', 'TOOLS.md'), 'X', repo2)).toThrow(/leads outside/);
    expect(readFileSync(path.join(outside, 'target.md'), 'utf8')).toBe('keep');
  });
});

describe("Tea's own repository", () => {
  function fakeRepo(opts: { name?: string; agent?: boolean; gitFile?: boolean } = {}): string {
    const repo = mkdir('tea');
    if (opts.gitFile) writeFileSync(path.join(repo, '.git'), 'gitdir: /elsewhere\n');
    else mkdirSync(path.join(repo, '.git'));
    writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: opts.name ?? 'tea-agent' }));
    if (opts.agent !== false) teaLayout(repo);
    mkdirSync(path.join(repo, 'src', 'deep', 'er'), { recursive: true });
    return repo;
  }

  it('is found from its root and below, in a worktree too', () => {
    const repo = fakeRepo();
    expect(ownRepoRoot(repo)).toBe(repo);
    expect(ownRepoRoot(path.join(repo, 'src', 'deep', 'er'))).toBe(repo);
    rmSync(repo, { recursive: true });
    expect(ownRepoRoot(fakeRepo({ gitFile: true }))).toBe(path.join(root, 'tea'));
  });

  it.each([
    ['another package', { name: 'tea-agent-fork' }],
    ['not Tea’s layout', { agent: false }],
  ])('is not: %s', (_what, opts) => {
    expect(ownRepoRoot(fakeRepo(opts))).toBeUndefined();
  });

  it('is not a folder outside any git repository', () => {
    expect(ownRepoRoot(mkdir('plain'))).toBeUndefined();
  });
});

describe('upkeep', () => {
  let store: Store;
  let home: string;
  let work: string;
  beforeEach(() => {
    store = Store.open(':memory:');
    home = mkdir('home');
    work = mkdir('work');
  });
  afterEach(() => store.close());

  function install(): void {
    for (const name of ['csv_stats', 'used_tool', 'fresh_tool']) {
      writeFileSync(path.join(mkdir('home', 'tools', name), '1.ts'), 'export default {}');
    }
    for (const [dir, name] of [
      ['home', 'old-skill'],
      ['home', 'pdf'],
      ['work/.tea', 'project-skill'],
    ] as const) {
      writeFileSync(
        path.join(mkdir(...dir.split('/'), 'skills', name), 'SKILL.md'),
        `---\nname: ${name}\n---\n`,
      );
    }
    aged(path.join(home, 'tools', 'csv_stats'), 60);
    aged(path.join(home, 'tools', 'used_tool'), 60);
    aged(path.join(home, 'skills', 'old-skill'), 60);
    aged(path.join(home, 'skills', 'pdf'), 60);
    aged(path.join(work, '.tea', 'skills', 'project-skill'), 45);
    // Junk an inventory skips: hidden, a file, a folder without SKILL.md, a bad name, a dangling link.
    mkdir('home', 'tools', '.cache');
    writeFileSync(path.join(home, 'tools', 'README.md'), 'x');
    mkdir('home', 'skills', 'no-skill-md');
    mkdir('home', 'skills', 'bad name\nx');
    symlinkSync(path.join(root, 'nowhere'), path.join(home, 'skills', 'dangling'));
    seedToolCall(store.db, { name: 'used_tool', at: NOW - DAY });
    seedToolCall(store.db, { name: 'skill', at: NOW - DAY, args: { name: 'pdf' } });
    seedToolCall(store.db, { name: 'csv_stats', at: NOW - 40 * DAY });
  }

  it('lists installed tools and skills by their folders, skipping junk', async () => {
    install();
    const items = await directoryInventory({ home, cwd: work }).list();
    expect(items.map((i) => `${i.kind}:${i.where}:${i.name}`).sort()).toEqual([
      'skill:project:project-skill',
      'skill:user:old-skill',
      'skill:user:pdf',
      'tool:user:csv_stats',
      'tool:user:fresh_tool',
      'tool:user:used_tool',
    ]);
  });

  it('stores the statistics, flags what nobody used in the window, and writes the reference to TEA_HOME', async () => {
    install();
    const result = await runUpkeep({
      db: store.db,
      state: store.evolveState,
      home,
      cwd: work,
      inventory: directoryInventory({ home, cwd: work }),
      referenceTools: async (target) => [doc({ name: `for_${target}` })],
      repoRoot: () => undefined,
      now: () => NOW,
    });
    expect(result.flagged.map((f) => `${f.kind}:${f.name}`)).toEqual([
      'skill:old-skill',
      'skill:project-skill',
      'tool:csv_stats',
    ]);
    expect(result.flagged[0]!.reason).toBe('not loaded in the last 30 days (unchanged since before then)');
    expect(result.installed).toEqual({ tools: 3, skills: 3 });
    expect(result.tools.map((t) => t.name)).toEqual(['skill', 'used_tool']);
    expect(result.reference).toMatchObject({
      target: 'home',
      path: path.join(home, 'TOOLS.md'),
      status: 'written',
    });
    expect(readFileSync(path.join(home, 'TOOLS.md'), 'utf8')).toContain('### for_home');
    expect(result.errors).toEqual([]);
    expect(lastUpkeep(store.evolveState)).toEqual(result);
  });

  it("in Tea's repository writes docs/TOOLS.md; a failing part is reported, the rest done", async () => {
    const repo = mkdir('repo');
    const deps = {
      db: store.db,
      state: store.evolveState,
      home,
      cwd: repo,
      inventory: { list: async () => Promise.reject(new Error('disk gone')) },
      referenceTools: async () => [doc({})],
      repoRoot: () => repo,
      now: () => NOW,
    };
    const result = await runUpkeep(deps);
    expect(result.reference).toMatchObject({ target: 'repo', path: path.join(repo, 'docs', 'TOOLS.md') });
    expect(result.errors).toEqual(['listing user tools and skills failed: disk gone']);
    const failing = await runUpkeep({
      ...deps,
      referenceTools: async () => Promise.reject(new Error('no registry')),
    });
    expect(failing.reference).toMatchObject({ error: 'no registry' });
    expect(failing.errors).toContain('the tools reference: no registry');
  });
});

import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv, runTea } from '../support/cli.js';

let ctx: CliEnv;
beforeEach(() => {
  ctx = cliEnv();
});
afterEach(() => ctx.cleanup());

const tea = (args: string[]) => runTea(args, { env: ctx.env, cwd: ctx.work });

describe('tea memory', () => {
  it('adds, lists, searches (also two-character Chinese words), supersedes and forgets', async () => {
    expect((await tea(['memory', 'add', 'The user lives in Paris'])).stdout).toMatch(/^new: #1 /);
    expect((await tea(['memory', 'add', '-c', 'preference', '用户喜欢使用深色主题'])).code).toBe(0);
    expect((await tea(['memory', 'add', 'The user lives in Paris'])).stdout).toMatch(/^duplicate: #1 /);

    const found = await tea(['memory', 'search', '深色']);
    expect(found.stdout).toContain('用户喜欢使用深色主题');

    const moved = await tea(['memory', 'add', 'The user lives in Berlin']);
    expect(moved.stdout).toMatch(/^update: .*Berlin.*replacing #1/);
    const list = await tea(['memory', 'list']);
    expect(list.stdout).toContain('Berlin');
    expect(list.stdout).not.toContain('Paris');
    const history = await tea(['memory', 'list', '--all']);
    expect(history.stdout).toMatch(/Paris.*superseded by #\d+/);

    const id = /#(\d+)/.exec(moved.stdout)![1]!;
    expect((await tea(['memory', 'rm', id])).stdout).toMatch(/^forgotten: /);
    expect((await tea(['memory', 'list'])).stdout).not.toContain('Berlin');
  });

  it('add -c / --category stores the category given (and fact by default)', async () => {
    expect((await tea(['memory', 'add', '-c', 'preference', 'Prefers short answers'])).stdout).toMatch(
      /^new: #1 +preference /,
    );
    expect((await tea(['memory', 'add', '--category', 'instruction', 'Run the linter first'])).code).toBe(0);
    expect((await tea(['memory', 'add', 'The office is in Lyon'])).code).toBe(0);
    const rows = JSON.parse((await tea(['memory', 'list', '--json'])).stdout) as Array<{
      content: string;
      category: string;
    }>;
    const byContent = Object.fromEntries(rows.map((r) => [r.content, r.category]));
    expect(byContent).toEqual({
      'Prefers short answers': 'preference',
      'Run the linter first': 'instruction',
      'The office is in Lyon': 'fact',
    });
  });

  it('exports and imports JSON, and keeps a profile', async () => {
    await tea(['memory', 'add', '-c', 'instruction', 'Always run the tests before committing']);
    const file = path.join(ctx.work, 'mem.json');
    const exported = await tea(['memory', 'export', file]);
    expect(exported.stdout).toBe(`exported 1 memory (history included) to ${file}\n`);
    // For the user alone, like the data home's files: a new file, and one that was there.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const existing = path.join(ctx.work, 'old.json');
    writeFileSync(existing, '[]', { mode: 0o644 });
    chmodSync(existing, 0o644);
    expect((await tea(['memory', 'export', existing])).code).toBe(0);
    expect(statSync(existing).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(existing, 'utf8'))).toHaveLength(1);
    const nowhere = await tea(['memory', 'export', path.join(ctx.work, 'no-such-dir', 'x.json')]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/^tea: cannot write .*x\.json: ENOENT/);

    const other = cliEnv();
    try {
      const imported = await runTea(['memory', 'import', file], { env: other.env });
      expect(imported.stdout).toMatch(/imported 1 memory \(0 already known\)/);
      const again = await runTea(['memory', 'import', file], { env: other.env });
      expect(again.stdout).toMatch(/imported 0 memories \(1 already known\)/);
    } finally {
      other.cleanup();
    }

    writeFileSync(path.join(ctx.work, 'bad.json'), '{"not":"an array"}');
    const bad = await tea(['memory', 'import', path.join(ctx.work, 'bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/expected a JSON array/);

    expect(
      (await tea(['memory', 'profile', 'Senior', 'Go', 'developer;', 'prefers', 'short', 'answers'])).stdout,
    ).toContain('Senior Go developer; prefers short answers');
    expect((await tea(['memory', 'profile'])).stdout).toContain('Senior Go developer');
    const tooLong = await tea(['memory', 'profile', 'x'.repeat(1600)]);
    expect(tooLong.code).toBe(2);
  });

  it('keeps the four facts of two shared frames; a same-subject change supersedes, history and restore undo it', async () => {
    const four = [
      'The staging API of Heron runs on port 9090.',
      'The staging API of Osprey runs on port 7000.',
      '王磊每天早上都要喝一杯豆浆。',
      '陈静每天早上都要喝一杯咖啡。',
    ];
    for (const text of four) expect((await tea(['memory', 'add', text])).stdout).toMatch(/^new: /);
    const list = (await tea(['memory', 'list'])).stdout;
    for (const text of four) expect(list).toContain(text);

    const changed = await tea(['memory', 'add', "Heron's staging API now runs on port 9191."]);
    expect(changed.stdout).toMatch(/^update: .*9191.*replacing #1$/m);
    const after = (await tea(['memory', 'list'])).stdout;
    expect(after).not.toContain('port 9090');
    expect(after).toContain('Osprey');

    const history = await tea(['memory', 'history', '1']);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(
      /^#5 +current since \d{4}-\d{2}-\d{2} +Heron's staging API now runs on port 9191\./m,
    );
    // Both ends on one day: the times show (UTC).
    expect(history.stdout).toMatch(
      /^#1 +\d{4}-\d{2}-\d{2} \d\d:\d\d → \d\d:\d\d UTC +The staging API of Heron runs on port 9090\. \(superseded by #5\)/m,
    );

    const search = await tea(['memory', 'search', 'Heron', 'staging', 'port']);
    expect(search.stdout).toMatch(/^(0\.\d\d|1\.00) +#5 .*9191/m);
    expect(search.stdout).toMatch(
      /^ +earlier: #1 The staging API of Heron runs on port 9090\. +\(\d{4}-\d{2}-\d{2} \d\d:\d\d → \d\d:\d\d UTC\)/m,
    );

    expect((await tea(['memory', 'restore', '1'])).stdout).toMatch(/^restored: #1 /);
    expect((await tea(['memory', 'list'])).stdout).toContain('port 9090');
    const twice = await tea(['memory', 'restore', '1']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(
      /memory 1 is already active; nothing to restore \(tea memory history 1 lists its versions\)/,
    );
    const unknown = await tea(['memory', 'history', '999']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no memory with id 999/);
  });

  it('-c after the subcommand is its --category, not the root --continue', async () => {
    const added = await tea(['memory', 'add', '-c', 'preference', 'The user prefers short answers']);
    expect(added.stdout).toMatch(
      /^new: #1 +preference +P1 .* {2}The user prefers short answers {2}\[user\]$/m,
    );
    const rows = JSON.parse((await tea(['memory', 'list', '--json'])).stdout) as Array<{
      content: string;
      category: string;
    }>;
    expect(rows).toEqual([
      expect.objectContaining({ content: 'The user prefers short answers', category: 'preference' }),
    ]);
  });

  it('search cuts off what does not match and shows scores', async () => {
    await tea(['memory', 'add', 'The staging API of Heron runs on port 9090.']);
    await tea(['memory', 'add', '王磊每天早上都要喝一杯豆浆。']);
    const port = await tea(['memory', 'search', 'port']);
    expect(port.stdout.trim().split('\n')).toHaveLength(1);
    expect(port.stdout).toMatch(/^(0\.\d\d|1\.00) +#1 /);
    expect((await tea(['memory', 'search', 'gardening', 'tips'])).stdout).toBe('No memory matches.\n');
    expect((await tea(['memory', 'search', 'port', '--all'])).stdout.trim().split('\n')).toHaveLength(2);
  });

  it('imports JSON Lines with dates, in time order through the ingest decisions', async () => {
    const file = path.join(ctx.work, 'facts.jsonl');
    writeFileSync(
      file,
      [
        '{"content": "The user lives in Rome", "created_at": "2025-06-01"}',
        '{"content": "The user lives in Paris", "created_at": "2025-01-01"}',
        '{"content": "The user lives in Berlin", "createdAt": 1740787200}',
        '{"content": "The user prefers tabs", "category": "preference", "tags": "editor, style"}',
      ].join('\n'),
    );
    const r = await tea(['memory', 'import', file, '--ingest']);
    expect(r.stdout).toBe(
      'ingested 4 statements in time order: 2 new, 2 updates, 0 duplicates, 0 earlier versions\n',
    );
    const active = JSON.parse((await tea(['memory', 'list', '--json'])).stdout) as Array<{
      content: string;
      tags: string[];
    }>;
    expect(active.map((m) => m.content).sort()).toEqual(['The user lives in Rome', 'The user prefers tabs']);
    expect(active.find((m) => m.content.includes('tabs'))?.tags).toEqual(['editor', 'style']);
    const rome = (await tea(['memory', 'search', 'Rome'])).stdout;
    expect(rome).toMatch(/earlier: #\d+ The user lives in Berlin +\(2025-03-01 → 2025-06-01\)/);

    writeFileSync(file, '{"content": "ok"}\n{"content": ""}\n');
    const bad = await tea(['memory', 'import', file, '--ingest']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('facts.jsonl: memory 2 of 2: "content" must be a non-empty string');
  });
});

import { writeFileSync } from 'node:fs';
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

  it('exports and imports JSON, and keeps a profile', async () => {
    await tea(['memory', 'add', '-c', 'instruction', 'Always run the tests before committing']);
    const file = path.join(ctx.work, 'mem.json');
    expect((await tea(['memory', 'export', file])).code).toBe(0);

    const other = cliEnv();
    try {
      const imported = await runTea(['memory', 'import', file], { env: other.env });
      expect(imported.stdout).toMatch(/imported 1 memories \(0 already known\)/);
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
});

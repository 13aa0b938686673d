/** The permission entry point's halves: the facts of a call (describeCall) and authorizeCall with a face's asker. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AskRequest, authorizeCall } from '../../src/tools/authorize.js';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import { describeCall } from '../../src/tools/describe.js';
import { PermissionPolicy } from '../../src/tools/permissions.js';

const tools = await createToolRegistry();
await Promise.all(tools.names().map((name) => tools.load(name)));
const tool = (name: string) => tools.loaded(name)!;
let root: string;
let work: string;
let extra: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tea-describe-')));
  work = path.join(root, 'work');
  extra = path.join(root, 'extra');
  mkdirSync(path.join(work, 'src'), { recursive: true });
  mkdirSync(extra);
  symlinkSync(extra, path.join(work, 'out-link'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('describeCall', () => {
  it('resolves the files a call names against the workspace and the added roots', async () => {
    const facts = await describeCall(tool('write_file'), { path: 'src/a.ts', content: '' }, { cwd: work });
    expect(facts).toMatchObject({
      tool: 'write_file',
      approval: 'write',
      category: 'files',
      readOnly: false,
      subject: 'src/a.ts',
      paths: [{ path: path.join(work, 'src/a.ts'), inside: true }],
    });
    const move = await describeCall(
      tool('move_path'),
      { from: '../extra/x', to: 'out-link/y' },
      { cwd: work },
    );
    expect(move.paths).toEqual([
      { path: path.join(extra, 'x'), inside: false },
      { path: path.join(extra, 'y'), inside: false },
    ]);
    const added = await describeCall(
      tool('read_file'),
      { path: 'out-link/y' },
      { cwd: work, roots: [extra] },
    );
    expect(added.paths).toEqual([{ path: path.join(extra, 'y'), inside: true }]);
    const patch = '*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** Delete File: old.ts\n*** End Patch';
    expect((await describeCall(tool('apply_patch'), { patch }, { cwd: work })).paths).toEqual([
      { path: path.join(work, 'src/new.ts'), inside: true },
      { path: path.join(work, 'old.ts'), inside: true },
    ]);
  });

  it("lists a shell line's commands and whether it reaches the network", async () => {
    const facts = await describeCall(tool('bash'), { command: 'npm test && curl -s x | sh' }, { cwd: work });
    expect(facts).toMatchObject({
      shell: true,
      approval: 'exec',
      commands: ['npm test', 'curl -s x', 'sh'],
      network: true,
    });
    expect((await describeCall(tool('bash'), { command: 'ls -la' })).network).toBeUndefined();
    expect((await describeCall(tool('web_fetch'), { url: 'https://example.com' })).network).toBe(true);
  });

  it('check gives the same verdict as decide, with the part that needs approval', async () => {
    const policy = new PermissionPolicy('ask', [{ tool: 'bash', pattern: 'npm test*', action: 'allow' }]);
    const facts = await describeCall(tool('bash'), { command: 'npm test; id' }, { cwd: work });
    expect(await policy.check(facts)).toEqual(await policy.decide(facts));
    expect(await policy.check(facts)).toMatchObject({ action: 'ask', part: 'id' });
  });
});

describe('authorizeCall', () => {
  const where = { cwd: '' };
  beforeAll(() => {
    where.cwd = work;
  });

  it('asks the face only for an ask; "always" adds a session grant', async () => {
    const policy = new PermissionPolicy('ask');
    const asked: AskRequest[] = [];
    const asker = {
      ask: async (r: AskRequest) => {
        asked.push(r);
        return { decision: 'always' as const };
      },
    };
    const args = { command: 'make build' };
    expect(await authorizeCall(tool('bash'), args, { policy, where, asker })).toMatchObject({
      allowed: true,
      answer: 'always',
    });
    expect(asked.map((r) => [r.facts.subject, r.verdict.part])).toEqual([['make build', 'make build']]);
    expect(await authorizeCall(tool('bash'), args, { policy, where, asker })).toMatchObject({
      allowed: true,
    });
    expect(asked).toHaveLength(1);
    expect(await authorizeCall(tool('read_file'), { path: 'x' }, { policy, where, asker })).toMatchObject({
      allowed: true,
    });
    expect(asked).toHaveLength(1);
  });

  it('without an asker, an ask is refused in the face’s words, with the flags that would let it run', async () => {
    const policy = new PermissionPolicy('ask');
    const args = { path: 'notes.txt', content: 'x' };
    const plain = await authorizeCall(tool('write_file'), args, { policy, where });
    expect(plain).toMatchObject({ allowed: false, status: 'denied' });
    expect(!plain.allowed && plain.output).toBe(
      "[DENIED] write_file (notes.txt) needs the user's approval, and nobody can approve in this run.\n" +
        "Hint: say what you would have run; the user can rerun with --allow 'write_file:notes.txt' or --yolo.",
    );
    const worded = await authorizeCall(tool('write_file'), args, {
      policy,
      where,
      unanswerable: (r) => `no one here for ${r.label}: ${r.rerun}`,
    });
    expect(!worded.allowed && worded.output).toBe(
      "no one here for write_file (notes.txt): --allow 'write_file:notes.txt' or --yolo",
    );
  });

  it('a cancelled ask is a cancelled call; a rejection carries the user’s words', async () => {
    const policy = new PermissionPolicy('ask');
    const args = { command: 'make' };
    const cancelled = await authorizeCall(tool('bash'), args, {
      policy,
      where,
      asker: { ask: async () => ({ decision: 'cancelled' }) },
    });
    expect(cancelled).toMatchObject({ allowed: false, status: 'cancelled' });
    const rejected = await authorizeCall(tool('bash'), args, {
      policy,
      where,
      asker: { ask: async () => ({ decision: 'reject', message: 'not now' }) },
    });
    expect(rejected).toMatchObject({ allowed: false, status: 'denied', answer: 'reject' });
    expect(!rejected.allowed && rejected.output).toMatch(
      /^\[DENIED\] The user rejected bash \(make\): not now\n/,
    );
  });
});

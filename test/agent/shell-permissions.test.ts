/**
 * Shell command lines through the permission path the agent uses for every tool
 * call (`authorize`: facts → policy → allow, refuse or ask), with the real bash
 * tool and nobody to answer approvals, as in `tea -p`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize } from '../../src/agent/approval.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { Interactions } from '../../src/agent/interactions.js';
import { Store } from '../../src/store/index.js';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import { type PermissionMode, PermissionPolicy, type PermissionRule } from '../../src/tools/permissions.js';
import { BYPASSES, LEGIT, RULES } from '../tools/shell/cases.js';

const tools = await createToolRegistry();
const bash = (await tools.load('bash'))!;
let dir: string;
let workspace: string;
let store: Store;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tea-shell-perm-'));
  workspace = path.join(dir, 'work');
  mkdirSync(path.join(workspace, 'sub', 'deeper'), { recursive: true });
  store = Store.open(path.join(dir, 'tea.db'));
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function check(command: string, mode: PermissionMode = 'ask', rules: PermissionRule[] = RULES) {
  const events: AgentEvent[] = [];
  const result = await authorize(
    bash,
    { command },
    {
      policy: new PermissionPolicy(mode, rules),
      host: { store, sessionId: 's1', tools, interactions: new Interactions('deny'), loaded: new Set() },
      callId: 'c1',
      args: { command },
      signal: new AbortController().signal,
      emit: (e) => events.push(e),
      where: { cwd: workspace },
    },
  );
  expect(events).toEqual([]);
  return result.allowed
    ? { allowed: true as const, output: '' }
    : { allowed: false as const, output: result.output };
}

describe('bypass attempts against allow npm test*, git status, echo* and deny rm *, *curl*', () => {
  it('the table holds at least 200 attempts, none twice', () => {
    expect(BYPASSES.length).toBeGreaterThanOrEqual(200);
    expect(new Set(BYPASSES.map(([command]) => command)).size).toBe(BYPASSES.length);
  });

  it.each(BYPASSES)('ask mode refuses %j (%s)', async (command, expected) => {
    const r = await check(command);
    expect(r.allowed).toBe(false);
    if (expected === 'deny') expect(r.output).toMatch(/^\[DENIED\] bash \(.*\) is not allowed here \(/s);
    else expect(r.output).toMatch(/^\[DENIED\] bash \(.*\) needs the user's approval \(/s);
    // The refusal names the piece of the line that needed it.
    expect(r.output).toMatch(/`[^`]+`/);
  });

  it('read-only mode refuses every one of them', async () => {
    const allowed: string[] = [];
    for (const [command] of BYPASSES) if ((await check(command, 'read-only')).allowed) allowed.push(command);
    expect(allowed).toEqual([]);
  });

  it('yolo mode still refuses every way around the deny rules', async () => {
    const allowed: string[] = [];
    for (const [command, expected] of BYPASSES) {
      if (expected === 'deny' && (await check(command, 'yolo')).allowed) allowed.push(command);
    }
    expect(allowed).toEqual([]);
  });
});

describe('legitimate command lines', () => {
  it.each(LEGIT.map((c) => [c]))('%j runs without asking', async (command) => {
    expect(await check(command)).toEqual({ allowed: true, output: '' });
  });
});

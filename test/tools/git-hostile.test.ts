/**
 * "Opening a cloned repo must never run its commands": for each hostile config in
 * ATTACKS, plain git is first shown to run the planted program (the control), then
 * every git tool is called in every approval mode that lets it run, and the marker
 * directory must stay empty after each call.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION_MODES, PermissionPolicy } from '../../src/tools/permissions.js';
import { runTool } from '../../src/tools/run.js';
import type { Tool } from '../../src/tools/types.js';
import { call, makeCtx, registry } from './git-fixtures.js';
import {
  ATTACKS,
  type Attack,
  baseRepo,
  clearMarks,
  gitVersion,
  makeMarkers,
  marks,
  plainGit,
} from './git-hostile-fixtures.js';

/** Every git tool, in an order that reaches each code path (labels are what ATTACKS refer to). */
const SEQUENCE: [label: string, tool: string, args: Record<string, unknown>][] = [
  ['git_status', 'git_status', {}],
  ['git_diff', 'git_diff', {}],
  ['git_diff staged', 'git_diff', { staged: true }],
  ['git_diff ref', 'git_diff', { ref: 'HEAD~1' }],
  ['git_log', 'git_log', {}],
  ['git_show', 'git_show', { ref: 'HEAD' }],
  ['git_show path', 'git_show', { ref: 'HEAD', path: 'a.txt' }],
  ['git_blame', 'git_blame', { path: 'a.txt' }],
  ['git_stash pop', 'git_stash', { action: 'pop' }],
  ['git_commit', 'git_commit', { message: 'tea: staged' }],
  ['git_commit all', 'git_commit', { message: 'tea: all', all: true }],
  ['git_add', 'git_add', { paths: ['new.txt'] }],
  ['git_branch create', 'git_branch', { action: 'create', name: 'side' }],
  ['git_branch switch', 'git_branch', { action: 'switch', name: 'side' }],
  ['git_branch switch back', 'git_branch', { action: 'switch', name: 'main' }],
  ['git_branch list', 'git_branch', { action: 'list' }],
  ['git_checkout_file', 'git_checkout_file', { path: 'a.txt', ref: 'HEAD~1' }],
  ['git_stash push', 'git_stash', { action: 'push' }],
  ['git_stash list', 'git_stash', { action: 'list' }],
  ['git_stash show', 'git_stash', { action: 'show' }],
  ['git_stash pop', 'git_stash', { action: 'pop' }],
  ['git_branch delete', 'git_branch', { action: 'delete', name: 'side' }],
];

function tool(name: string): Tool {
  const found = registry.loaded(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

let server: Server;
let httpUrl = '';
beforeAll(async () => {
  // A remote that wants a password: git asks credential helpers and askpass programs.
  server = createServer((_req, res) => {
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="tea"', 'Content-Length': '0' });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  httpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/repo.git`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const [major, minor] = gitVersion();
function tooOld(attack: Attack): boolean {
  if (!attack.minGit) return false;
  const [needMajor, needMinor] = attack.minGit;
  return major < needMajor || (major === needMajor && minor < needMinor);
}

for (const attack of ATTACKS) {
  describe(`hostile repository: ${attack.name}`, () => {
    it.skipIf(tooOld(attack))(
      'runs for plain git, and never for a git tool in any approval mode',
      async () => {
        const m = await makeMarkers();
        if (attack.control.length > 0) {
          const proof = await baseRepo();
          const where = (await attack.setup(proof, m, { httpUrl })) ?? proof;
          for (const args of attack.control) await plainGit(where, args);
          expect(await marks(m), 'plain git runs the planted program').not.toEqual([]);
          await clearMarks(m);
        } else {
          expect(attack.unreachable).toBeTruthy();
        }

        const repo = await baseRepo();
        const cwd = (await attack.setup(repo, m, { httpUrl })) ?? repo;
        for (const mode of PERMISSION_MODES) {
          const policy = new PermissionPolicy(mode);
          for (const [label, name, args] of SEQUENCE) {
            const t = tool(name);
            const subject = t.subject?.(args);
            const decision = await policy.decide({
              tool: name,
              approval: t.approval,
              ...(subject ? { subject } : {}),
            });
            const r = await runTool(registry, call(name, args), makeCtx(cwd), {
              // The user answers yes to every question: only what the mode refuses is not run.
              authorize: async () =>
                decision.action === 'deny'
                  ? { allowed: false, status: 'denied', output: `[DENIED] ${decision.reason}` }
                  : { allowed: true },
            });
            expect({ mode, label, marks: await marks(m) }).toEqual({ mode, label, marks: [] });
            if (decision.action === 'deny') {
              expect({ mode, label, status: r.status, readTool: t.approval === 'none' }).toEqual({
                mode,
                label,
                status: 'denied',
                readTool: false,
              });
              continue;
            }
            const refused = /was not run: it would run programs/.test(r.output);
            expect({ mode, label, refused }).toEqual({
              mode,
              label,
              refused: attack.refused?.includes(label) ?? false,
            });
            if (refused)
              expect(r.output).toContain('Hint: if the user trusts this repository, run the same git');
            if (label === 'git_status') expect({ mode, status: r.status }).toEqual({ mode, status: 'ok' });
          }
        }
      },
    );
  });
}

/** `tea workflow` list, run (a built-in flow, a bad file, an approval), show, history, fork and cancel from another process. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tagOf } from '../multi/workflow/helpers.js';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { startTea } from './running.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });

function flow(name: string, text: string): string {
  const dir = path.join(t.ctx.work, '.tea', 'workflows');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
}

const GATED = `name: gated
description: plan, ask, apply
state: { plan: string, result: string }
nodes:
  plan: { kind: agent, role: analyst, prompt: "[plan]", output: plan, next: ok }
  ok: { kind: wait, approval: "Apply {{state.plan}}?", next: apply }
  apply: { kind: agent, role: coder, prompt: "[apply]", output: result, next: done }
  done: { kind: end, result: "{{state.result}}" }
`;

describe('tea workflow', () => {
  it('list shows the built-in flows and the project one, then the runs', async () => {
    flow('gated.yaml', GATED);
    const r = await tea(['workflow', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}gated +project +plan, ask, apply$/m);
    for (const name of ['review', 'fix', 'test', 'refactor', 'feature', 'docs']) {
      expect(r.stdout).toMatch(new RegExp(`^  ${name} +built-in `, 'm'));
    }
    expect(r.stdout).toContain('No runs yet.');
    const json = JSON.parse((await tea(['workflow', 'list', '--json'])).stdout);
    expect(json.workflows.map((w: { name: string }) => w.name)).toContain('review');
    expect(json.runs).toEqual([]);
  });

  it('runs the built-in review flow: output on stdout, one line per node on stderr', async () => {
    t.server.respond((body) =>
      reply().text(
        JSON.stringify(body).includes('Write the review report') ? 'REPORT: all good' : '- low: a.ts:1 nit',
      ),
    );
    writeFileSync(path.join(t.ctx.work, 'a.ts'), 'export const a = 1;\n');
    const r = await tea(['workflow', 'run', 'review', '--input', 'target=a.ts']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('REPORT: all good\n');
    expect(r.stderr).toMatch(
      /^tea: workflow review: run [0-9a-f-]{36}\n▶ scan \(agent\)\n✓ scan\n▶ report \(agent\)\n✓ report\n/,
    );
    expect(t.server.requests).toHaveLength(2);
    expect(JSON.stringify(t.server.requests[0]!.body)).toContain('Review a.ts in this workspace');
  });

  it('a bad file is exit 2 naming the file, line, node and fix, before any model call; so is a bad --input', async () => {
    const file = flow(
      'bad.yaml',
      'name: bad\nnodes:\n  a: { kind: agent, role: r, prompt: p, next: nowhere }\n',
    );
    const r = await tea(['workflow', 'run', 'bad']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`tea: invalid workflow\n${file}:3: node "a": next: no node named "nowhere"\n`);
    const input = await tea(['workflow', 'run', 'review', '--input', 'nokey']);
    expect(input.code).toBe(2);
    expect(input.stderr).toMatch(
      /^tea: option '-i, --input <key=value>' argument 'nokey' is invalid: expected key=value/,
    );
    const unknown = await tea(['workflow', 'run', 'review', '--input', 'targte=x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/"targte" is not an input of review \(it takes target, focus\)/);
    expect(t.server.requests).toHaveLength(0);
  });

  it('refuses a workflow naming a role or tool that does not exist, before any model call or stored run', async () => {
    const file = flow(
      'typos.yaml',
      [
        'name: typos',
        'nodes:',
        '  a: { kind: agent, role: analsyt, prompt: p, next: b }',
        '  b: { kind: tool, tool: write_flie, args: { path: x, content: y }, next: c }',
        '  c: { kind: end }',
      ].join('\n'),
    );
    const r = await tea(['workflow', 'run', 'typos']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: node "a": no role named "analsyt"; did you mean analyst?`);
    expect(r.stderr).toContain('node "b": no tool named "write_flie"; did you mean write_file?');
    expect(t.server.requests).toHaveLength(0);
    const list = await tea(['workflow', 'list']);
    expect(list.stdout).not.toContain('typos ·');
  });

  it('resume --reject says the approval was refused, and the run takes the refusal branch', async () => {
    t.server.respond((body) => reply().text(tagOf(body) === 'plan' ? 'P1' : 'applied'));
    flow(
      'gated.yaml',
      `${GATED.replace('next: apply }', 'on_reject: stop, next: apply }')}  stop: { kind: end, result: "not applied" }\n`,
    );
    const first = await tea(['workflow', 'run', 'gated']);
    const id = /run ([0-9a-f-]{36}) waits/.exec(first.stderr)?.[1];
    expect(id, first.stderr).toBeDefined();
    const rejected = await tea(['workflow', 'resume', id!, '--reject']);
    expect(rejected.stderr).toContain('✗ ok: rejected');
    expect(rejected.stderr).not.toContain('✓ ok');
    expect(rejected.stdout).toBe('not applied\n');
    expect(t.server.requests.filter((r) => tagOf(r.body) === 'apply')).toHaveLength(0);
  });

  it('an approval nobody can answer here waits (exit 4); resume --approve goes on; show, history and fork', async () => {
    t.server.respond((body) => reply().text(tagOf(body) === 'plan' ? 'P1' : 'applied'));
    flow('gated.yaml', GATED);
    const first = await tea(['workflow', 'run', 'gated']);
    expect(first.code).toBe(4);
    const id = /run ([0-9a-f-]{36}) waits for your approval at ok: Apply P1\?/.exec(first.stderr)?.[1];
    expect(id, first.stderr).toBeDefined();
    expect(first.stderr).toContain(`tea workflow resume ${id!.slice(0, 8)} --approve (or --reject)`);

    const waiting = await tea(['workflow', 'show', id!.slice(0, 8)]);
    expect(waiting.stdout).toMatch(/status: ⏸ waiting/);
    // The agent step names its session, and that session shows its transcript.
    const step = /✓ plan {2}\(agent\).*\n {6}session ([0-9a-f]{8}) \(tea sessions show \1\)/.exec(
      waiting.stdout,
    );
    expect(step, waiting.stdout).not.toBeNull();
    const transcript = await tea(['sessions', 'show', step![1]!]);
    expect(transcript.stdout).toContain('[plan]');
    expect(transcript.stdout).toContain('P1');
    expect(waiting.stdout).toMatch(
      /```mermaid\nflowchart TD\n[\s\S]*"⏸ ok<br\/>wait"[\s\S]*class n1 waiting\n```/,
    );

    const resumed = await tea(['workflow', 'resume', id!, '--approve']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('applied\n');
    expect(resumed.stderr).toContain('✓ 1 node(s) recorded before: not run again');

    const history = await tea(['workflow', 'history', id!]);
    expect(history.code).toBe(0);
    const lines = history.stdout.split('\n').filter((l) => /^\s+\d+ /.test(l));
    expect(
      lines.map(
        (l) =>
          l
            .replace(/\d\d:\d\d:\d\d/, 'T')
            .replace(/\s+/g, ' ')
            .trim()
            .split(' → ')[0],
      ),
    ).toEqual([
      '1 T start plan (agent)',
      '2 T result completed plan (agent)',
      '3 T start ok (wait)',
      '4 T start ok (wait)',
      '5 T result completed ok (wait)',
      '6 T start apply (agent)',
      '7 T result completed apply (agent)',
      '8 T result completed done (end)',
    ]);

    // A fork from checkpoint 2 (the plan done) asks again, here with the approval given at once.
    t.server.reset();
    t.server.respond(() => reply().text('applied again'));
    const fork = await tea(['workflow', 'fork', id!, '2', '--json']);
    expect(fork.code).toBe(4);
    const forked = /forked run ([0-9a-f-]{36}) from/.exec(fork.stderr)?.[1];
    expect(t.server.requests).toHaveLength(0);
    const again = await tea(['workflow', 'resume', forked!, '--approve', '--json']);
    expect(JSON.parse(again.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      type: 'run_end',
      status: 'completed',
      output: 'applied again',
    });
    expect(t.server.requests.map((r) => tagOf(r.body))).toEqual(['apply']);
    const bad = await tea(['workflow', 'fork', id!, 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "tea: command-argument value 'x' is invalid for <checkpoint>: expected a checkpoint number (tea workflow history <run>) (see tea workflow fork --help)\n",
    );
  });

  it('tea workflow cancel from another process stops the run at its next heartbeat', async () => {
    let arrived: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    t.server.respond(() => {
      arrived();
      return reply().text('never').holdUntil('never');
    });
    flow('gated.yaml', GATED);
    const run = startTea(['workflow', 'run', 'gated', '--json'], { env: t.ctx.env, cwd: t.ctx.work });
    await asked;
    const id = (JSON.parse(run.stdout.split('\n')[0]!) as { run_id: string }).run_id;
    const cancel = await tea(['workflow', 'cancel', id]);
    expect(cancel.stdout).toBe(
      `asked the process running ${id} to cancel it (it stops at its next heartbeat)\n`,
    );
    const exit = await run.exit;
    expect(exit.code).toBe(130);
    expect(exit.stderr).toContain(
      `tea: run ${id} cancelled; go on with: tea workflow resume ${id.slice(0, 8)}`,
    );
    const shown = JSON.parse((await tea(['workflow', 'show', id, '--json'])).stdout);
    expect(shown.status).toBe('cancelled');
    expect(shown.nodes).toEqual([
      expect.objectContaining({ key: 'plan', status: 'interrupted', attempts: 1 }),
    ]);
    expect((await tea(['workflow', 'cancel', id])).stdout).toBe(`run ${id} has already finished\n`);
  });

  it('Ctrl-C cancels the run (exit 130); resume goes on from where it was', async () => {
    let arrived: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let hold = true;
    t.server.respond((body) => {
      if (hold && tagOf(body) === 'apply') {
        arrived();
        return reply().text('never').holdUntil('never');
      }
      return reply().text(tagOf(body) === 'plan' ? 'P1' : 'applied');
    });
    flow(
      'gated.yaml',
      GATED.replace('kind: wait, approval: "Apply {{state.plan}}?"', 'kind: wait, seconds: 0'),
    );
    const run = startTea(['workflow', 'run', 'gated'], { env: t.ctx.env, cwd: t.ctx.work });
    await asked;
    run.kill('SIGINT');
    const exit = await run.exit;
    expect(exit.code).toBe(130);
    const id = /run ([0-9a-f-]{36}) cancelled; go on with/.exec(exit.stderr)?.[1];
    expect(id, exit.stderr).toBeDefined();
    hold = false;
    const resumed = await tea(['workflow', 'resume', id!]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('applied\n');
    expect(t.server.requests.map((r) => tagOf(r.body))).toEqual(['plan', 'apply', 'apply']);
  });
});

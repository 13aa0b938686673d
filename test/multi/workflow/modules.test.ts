/** Workflows written as TypeScript modules: loaded with esbuild, run like YAML ones, errors named. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../../support/script.js';
import { tagCounts, tagOf, useWorkflowRuntime } from './helpers.js';

const env = useWorkflowRuntime();

const TRIAGE = `import { agent, condition, defineWorkflow, end } from 'tea-agent';
import { z } from 'zod';
import { LABEL } from './labels';

type Kind = 'bug' | 'feature';
export default defineWorkflow({
  name: 'triage',
  input: z.object({ issue: z.string() }),
  state: z.object({ kind: z.enum(['bug', 'feature']), reply: z.string() }),
  nodes: {
    classify: agent({ role: 'analyst', prompt: (s) => \`[classify] \${String(s.input.issue)}\`, output: 'kind', next: 'route' }),
    route: condition({ when: (s) => s.state.kind as Kind, routes: { bug: 'fix', feature: 'plan' } }),
    fix: { kind: 'agent', role: 'coder', prompt: '[fix] {{input.issue}}', output: 'reply', next: 'done' },
    plan: agent({ role: 'analyst', prompt: \`[plan] \${LABEL}\`, output: 'reply', next: 'done' }),
    done: end({ result: (s) => \`\${String(s.state.kind)}: \${String(s.state.reply)}\` }),
  },
});
`;

function writeModule(name: string, text: string): string {
  const dir = path.join(env.work(), '.tea', 'workflows');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'labels.ts'), "export const LABEL: string = 'from a module';\n");
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('TypeScript workflow modules', () => {
  it('run with typed state, functions as templates and conditions, and their own imports', async () => {
    env.server().respond((body) => reply().text(tagOf(body) === 'classify' ? 'feature' : 'planned it'));
    writeModule('triage.ts', TRIAGE);
    const wf = await env.service();
    expect((await wf.definitions()).find((d) => d.name === 'triage')).toMatchObject({ where: 'project' });
    const out = await (await wf.start('triage', { issue: 'add dark mode' })).done;
    expect(out).toMatchObject({ status: 'completed', output: 'feature: planned it' });
    expect(tagCounts(env.server().requests)).toEqual({ classify: 1, plan: 1 });
    const plan = env.server().requests.find((r) => tagOf(r.body) === 'plan')!;
    expect(JSON.stringify(plan.body)).toContain('[plan] from a module');
    const details = await wf.get(out.runId);
    expect(details.run.definition).toBeNull();
    expect(details.changed).toBe(false);
  });

  it('a module that does not compile, exports no workflow or has a bad graph says so, with the file', async () => {
    const wf = await env.service();
    const broken = writeModule(
      'broken.ts',
      'export default defineWorkflow({ name: "x", nodes: { a: end( } });\n',
    );
    await expect(wf.start(broken, {})).rejects.toThrow(new RegExp(`${broken}:1: does not compile: `));
    const empty = writeModule('empty.mjs', 'export const x = 1;\n');
    await expect(wf.start(empty, {})).rejects.toThrow(
      /empty\.mjs: exports no workflow\. Fix: export default defineWorkflow/,
    );
    const graph = writeModule(
      'graph.ts',
      "import { agent, defineWorkflow } from 'tea-agent';\nexport default defineWorkflow({ name: 'g', nodes: { a: agent({ role: 'r', prompt: 'p', next: 'nope' }) } });\n",
    );
    await expect(wf.start(graph, {})).rejects.toThrow(/graph\.ts: node "a": next: no node named "nope"/);
  });
});

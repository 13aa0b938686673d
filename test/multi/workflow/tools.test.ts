/** Tool nodes run under the permission policy; with nobody to ask, an ask is a refusal that names the way out. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useWorkflowRuntime } from './helpers.js';

const env = useWorkflowRuntime({ permissionMode: 'ask' });

const WRITE = (mode: string) => `name: write
${mode}
state: { out: string }
nodes:
  write: { kind: tool, tool: append_file, args: { path: out.txt, content: "x" }, output: out, next: look }
  look: { kind: tool, tool: read_file, args: { path: out.txt } }
`;

describe('tool nodes', () => {
  it('a write in ask mode is refused (nobody can answer) and fails the run, naming the flag that lets it run', async () => {
    const wf = await env.service();
    const out = await (await wf.start(env.writeFlow('write.yaml', WRITE('')), {})).done;
    expect(out.status).toBe('failed');
    expect(out.error).toMatch(
      /^node "write" \(tool\) failed: append_file \(out\.txt\) was refused \(.*\); to let it run: .*--allow/,
    );
    expect(existsSync(path.join(env.work(), 'out.txt'))).toBe(false);
  });

  it('a read-only tool runs; bad arguments fail with a hint; an unknown tool is refused before the run', async () => {
    const wf = await env.service();
    const flow = env.writeFlow(
      'read.yaml',
      `name: read
nodes:
  list: { kind: tool, tool: list_dir, args: { path: "." }, next: bad }
  bad: { kind: tool, tool: read_file, args: {} }
`,
    );
    const out = await (await wf.start(flow, {})).done;
    expect(out.error).toMatch(/node "bad" \(tool\) failed: .*invalid arguments for read_file: path/);
    expect(wf.runner.status(out.runId).nodes[0]).toMatchObject({ key: 'list', status: 'completed' });

    const typo = env.writeFlow(
      'typo.yaml',
      'name: typo\nnodes:\n  bad: { kind: tool, tool: raed_file, args: {} }\n',
    );
    const runs = wf.runs().length;
    await expect(wf.start(typo, {})).rejects.toThrow(
      /node "bad": no tool named "raed_file"; did you mean read_file\?/,
    );
    expect(wf.runs()).toHaveLength(runs);
  });
});

/**
 * A skill folder in another agent's user skills directory (`~/.claude/skills`, outside
 * the workspace), used by a session through the scripted model server: listed in L0
 * (announced as likely relevant), the `skill` tool offered from the first request and
 * loading it on demand, its reference read with read_file, its script run with bash,
 * and its folder refused to writes. (The CLI test runs a project `.claude/skills` copy.)
 */
import { cpSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { useTempDirs } from '../store/helpers.js';
import { collect } from '../support/collect.js';
import { reply } from '../support/script.js';
import { useModelServer } from '../support/use-model-server.js';
import { wireMessages, wireText } from '../support/wire.js';

const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'skills', 'csv-report');
const model = useModelServer();
const tempDir = useTempDirs();
const open: Runtime[] = [];
afterEach(async () => {
  for (const rt of open.splice(0)) await rt.close();
  model().reset();
});

async function workspaceWithSkill(mode = 'yolo'): Promise<{ rt: Runtime; work: string; skillDir: string }> {
  const root = realpathSync(tempDir());
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  const user = path.join(root, 'user');
  for (const d of [home, work, user]) mkdirSync(d);
  const skillDir = path.join(user, '.claude', 'skills', 'csv-report');
  cpSync(FIXTURE, skillDir, { recursive: true });
  writeFileSync(path.join(work, 'sales.csv'), 'region,amount,units\nnorth,10,1\nsouth,20,2\neast,30,3\n');
  writeFileSync(
    path.join(home, 'config.yaml'),
    [
      `main_model: { base_url: ${model().openaiBaseUrl}, api_key: sk-test, model: scripted-model }`,
      'llm: { timeout_s: 5, max_retries: 0 }',
      'agent: { auto_title: false }',
      'memory: { extract: false, tune: false, judge: false }',
      `permissions: { mode: ${mode} }`,
      'sandbox: { mode: off }',
    ].join('\n'),
  );
  const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
  const rt = await createRuntime({ config, cwd: work, userHome: user, approvals: 'deny' });
  open.push(rt);
  return { rt, work, skillDir };
}

const toolNames = (i: number) =>
  (model().requests[i]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
const toolResults = (i: number) =>
  wireMessages(model().requests[i]!.body)
    .filter((m) => m.role === 'tool')
    .map(wireText);

describe('a skill copied from another agent', () => {
  it('is announced in L0, loaded by the skill tool, its reference read and its script run; its folder is read-only', async () => {
    const { rt, skillDir } = await workspaceWithSkill();
    const reference = path.join(skillDir, 'references', 'REFERENCE.md');
    const before = readFileSync(reference, 'utf8');
    model().script(
      reply().toolCall('skill', { name: 'csv-report' }),
      reply().toolCall('read_file', { path: reference }),
      reply().toolCall('bash', {
        command: `node ${path.join(skillDir, 'scripts', 'summarize.mjs')} sales.csv`,
      }),
      reply().toolCall('write_file', { path: reference, content: 'changed' }),
      reply().text('## Report: sales.csv'),
    );
    const events = await collect(
      rt.agent.newSession().prompt('give me a short report with totals of sales.csv'),
    );
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'completed' });

    const system = wireText(wireMessages(model().requests[0]!.body)[0]!);
    expect(system).toContain('## Skills\n\nSkills hold instructions for particular tasks');
    expect(system).toContain('Likely relevant now: csv-report');
    expect(system).toMatch(/\n- csv-report: Summarize CSV files into a short Markdown report/);
    expect(toolNames(0)).toContain('skill');

    const [loaded, read, ran, wrote] = toolResults(4);
    expect(loaded).toContain(`<skill name="csv-report" folder="${skillDir}">`);
    expect(loaded).toContain('# CSV report');
    expect(loaded).not.toContain('description: Summarize');
    expect(loaded).toMatch(
      /Files:\n {2}LICENSE\.txt\n {2}references\/REFERENCE\.md\n {2}scripts\/summarize\.mjs/,
    );
    expect(loaded).toMatch(/expects these tools: Bash\(node:\*\) Read \(tea: bash, .*read_file/);
    expect(read).toContain('teal-heron-42');
    expect(ran).toContain('| amount | 60.00 | 20.00 |');
    expect(wrote).toMatch(/^\[ERROR\] Refusing to change .*skill's folder/);
    expect(readFileSync(reference, 'utf8')).toBe(before);
  });
});

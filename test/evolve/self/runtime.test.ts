/**
 * self_modify through the runtime and the scripted model: outside Tea's own repository
 * it is not registered, listed, offered, found by tool_search or callable (a model
 * that calls it gets the ordinary unknown-tool error naming no self tool); inside, it
 * is offered by its facts (code loaded on first call), the system prompt has the one
 * line about the mode, and a model's bad self-patch comes back as `[ERROR] self_modify:
 * gate 2 (typecheck) failed` with the tree restored.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import { loadConfig } from '../../../src/config/load.js';
import { SELF_MODE_NOTE } from '../../../src/evolve/self/detect.js';
import { SELF_MODIFY_INFO, SELF_MODIFY_PARAMETERS } from '../../../src/evolve/self/info.js';
import { registerSelfTools, SELF_TOOL_NAMES } from '../../../src/evolve/self/register.js';
import { selfModifyTool } from '../../../src/evolve/self/tool.js';
import { createRuntime, type Runtime } from '../../../src/runtime/runtime.js';
import { listedTools } from '../../../src/runtime/tools.js';
import { infoOf } from '../../../src/tools/builtin/catalogue.js';
import { rankTools } from '../../../src/tools/loading.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { buildSpec } from '../../../src/tools/schema.js';
import { reply } from '../../support/script.js';
import { useModelServer } from '../../support/use-model-server.js';
import { type WireMessage, wireMessages, wireText } from '../../support/wire.js';
import { useFixture } from './cases.js';
import { copyRepo, diffOf, FILES, tpl, treeState } from './fixture.js';

const model = useModelServer();
const fx = useFixture();
const open: Runtime[] = [];
afterEach(async () => {
  for (const rt of open.splice(0)) await rt.close();
  model().reset();
});

async function runtimeAt(work: string): Promise<Runtime> {
  const home = mkdtempSync(path.join(fx.dir, 'rt-home-'));
  writeFileSync(
    path.join(home, 'config.yaml'),
    [
      `main_model: { base_url: ${model().openaiBaseUrl}, api_key: sk-test, model: scripted-model }`,
      'llm: { timeout_s: 30, max_retries: 0 }',
      'agent: { auto_title: false }',
      'memory: { extract: false, tune: false, judge: false }',
    ].join('\n'),
  );
  const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
  const rt = await createRuntime({ config, cwd: work, permissionMode: 'yolo' });
  open.push(rt);
  return rt;
}

async function prompt(rt: Runtime, text: string): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of rt.sessions.create().prompt(text)) out.push(e);
  return out;
}

const toolResults = (body: Record<string, unknown>): string[] =>
  wireMessages(body)
    .filter((m: WireMessage) => m.role === 'tool')
    .map(wireText);
const systemText = (body: Record<string, unknown>): string => wireText(wireMessages(body)[0]!);
const offered = (body: Record<string, unknown>): string[] =>
  ((body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);

describe('the self_modify tool by its facts', () => {
  it('has the facts and JSON schema of the tool itself, and loads only when first called', async () => {
    const tool = selfModifyTool({ home: '/nowhere' });
    expect(infoOf(tool)).toEqual(infoOf(SELF_MODIFY_INFO));
    expect(buildSpec(tool).parameters).toEqual(SELF_MODIFY_PARAMETERS);
    expect(tool.approval).toBe('exec');
    const registry = new ToolRegistry();
    registerSelfTools(registry, { home: '/nowhere' });
    expect(registry.names()).toEqual([...SELF_TOOL_NAMES]);
    expect(registry.loaded('self_modify')).toBeUndefined();
    expect((await registry.load('self_modify'))?.name).toBe('self_modify');
  });
});

describe('outside Tea’s own repository', { timeout: 60_000 }, () => {
  it('no self-modification tool is registered, listed, found or callable', async () => {
    const work = mkdtempSync(path.join(fx.dir, 'elsewhere-'));
    // A decoy: the name alone does not make a repository Tea's.
    writeFileSync(path.join(work, 'package.json'), '{"name":"tea-agent"}\n');
    mkdirSync(path.join(work, '.git'));
    const rt = await runtimeAt(work);
    for (const name of SELF_TOOL_NAMES) {
      expect(rt.tools.has(name)).toBe(false);
      expect(rt.tools.closest(name, 5).some((n) => SELF_TOOL_NAMES.includes(n))).toBe(false);
    }
    expect(rankTools(rt.tools, 'self modify evolve own source code', 10).map((t) => t.name)).not.toContain(
      'self_modify',
    );
    expect((await listedTools({ cwd: work })).names()).not.toContain('self_modify');
    model().script(
      reply().toolCall('self_modify', { reason: 'x', patch: '--- a/x\n+++ b/x\n' }),
      reply().text('I cannot change myself here.'),
    );
    await prompt(rt, 'improve yourself');
    const [first, second] = model().requests.map((r) => r.body);
    expect(systemText(first!)).not.toContain('Self-evolution');
    expect(systemText(first!)).not.toMatch(/self_modify/);
    expect(offered(first!)).not.toContain('self_modify');
    const [result] = toolResults(second!);
    expect(result).toMatch(
      /^\[ERROR\] Unknown tool "self_modify"\. (Did you mean: [\w, -]+\?|No tool has a similar name; the tools are: [\w, …()]+\.)\nHint: /,
    );
    expect(result!.replace('Unknown tool "self_modify"', '')).not.toMatch(/self_/);
  });
});

describe('inside Tea’s own repository', { timeout: 120_000 }, () => {
  it('offers self_modify, says so in one line of the system prompt, and runs its gates', async () => {
    const root = copyRepo(fx.template, fx.dir);
    const rt = await runtimeAt(path.join(root, 'src'));
    expect(rt.tools.get('self_modify')).toMatchObject({ approval: 'exec', category: 'evolve' });
    expect(rt.tools.loaded('self_modify')).toBeUndefined();
    expect((await listedTools({ cwd: root })).names()).toContain('self_modify');
    const before = treeState(root);
    const patch = diffOf(fx.template, fx.dir, {
      'src/tools/math.ts': FILES['src/tools/math.ts']!.replace('return a + b;', tpl('return `#{a + b}`;')),
    });
    model().script(
      reply().toolCall('tool_search', { query: 'self modify' }),
      reply().toolCall('self_modify', { reason: 'Return the sum as text', patch }),
      reply().text('The typecheck failed; nothing changed.'),
    );
    await prompt(rt, 'change add() to return text');
    const bodies = model().requests.map((r) => r.body);
    expect(systemText(bodies[0]!)).toContain(`\n${SELF_MODE_NOTE}\nPermission mode:`);
    expect(systemText(bodies[0]!).split(SELF_MODE_NOTE)).toHaveLength(2);
    expect(toolResults(bodies[1]!)[0]).toContain('self_modify');
    expect(offered(bodies[2]!)).toContain('self_modify');
    const result = toolResults(bodies[2]!)[1]!;
    expect(result).toMatch(
      /^\[ERROR\] self_modify: gate 2 \(typecheck\) failed\ntsc -p tsconfig\.json: 1 error\(s\)\nsrc\/tools\/math\.ts\(2,3\): error TS2322/,
    );
    expect(result).toContain('The tree was restored byte for byte');
    expect(result).toMatch(/\nHint: the tree is as it was/);
    expect(treeState(root)).toEqual(before);
  });
});

/**
 * The first request of a session (system prompt + tool definitions) stays within
 * 1,500 tokens with 20 real-looking skills installed, for prompts that match no skill,
 * one skill, or pre-load a tool besides; counted in o200k tokens (as test/agent/intent
 * counts) and as characters / 4 (as the loop's pre-load budget counts).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encode } from 'gpt-tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { FIRST_REQUEST_TOKENS } from '../../src/tools/loading.js';
import { collect } from '../support/collect.js';
import { reply } from '../support/script.js';
import { TWENTY_SKILLS, writeSkills } from '../support/skills.js';
import { useModelServer } from '../support/use-model-server.js';
import { wireMessages, wireText } from '../support/wire.js';

const model = useModelServer();
let rt: Runtime;
let root: string;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tea-skills-')));
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  const user = path.join(root, 'user');
  for (const d of [home, work, user]) mkdirSync(d);
  writeSkills(path.join(home, 'skills'), TWENTY_SKILLS);
  writeFileSync(
    path.join(home, 'config.yaml'),
    [
      `main_model: { base_url: ${model().openaiBaseUrl}, api_key: sk-test, model: scripted-model }`,
      'agent: { auto_title: false }',
      'memory: { extract: false, tune: false, judge: false }',
    ].join('\n'),
  );
  const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
  rt = await createRuntime({ config, cwd: work, userHome: user, approvals: 'deny', titles: false });
});
afterAll(async () => {
  await rt.close();
  rmSync(root, { recursive: true, force: true });
});

async function firstRequest(prompt: string): Promise<{ system: string; tools: string; names: string[] }> {
  model().reset();
  model().script(reply().text('ok'));
  const session = rt.agent.newSession();
  await collect(session.prompt(prompt));
  await session.settled();
  const body = model().requests[0]!.body;
  const system = wireMessages(body)
    .filter((m) => m.role === 'system')
    .map(wireText)
    .join('\n');
  const tools = JSON.stringify(body.tools ?? []);
  const names = (body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
  return { system, tools, names };
}

describe('the first request with 20 skills installed', () => {
  it.each([
    ['hi', []],
    ['merge these three PDFs into one', ['pdf']],
    ['write the release notes for v2.3 and show me the git log', ['release-notes']],
    ['remember that I prefer tabs over spaces', []],
    ['把这几个 PDF 合并成一个', ['pdf']],
    ['帮我把这个表格做成图表', ['xlsx']],
  ])('%s: within 1,500 tokens, every skill named, likely ones announced', async (prompt, likely) => {
    const { system, tools, names } = await firstRequest(prompt);
    const o200k = encode(system).length + encode(tools).length;
    const quarter = Math.ceil(system.length / 4) + Math.ceil(tools.length / 4);
    expect(o200k).toBeLessThanOrEqual(FIRST_REQUEST_TOKENS);
    expect(quarter).toBeLessThanOrEqual(FIRST_REQUEST_TOKENS);
    expect(names).toContain('skill');
    const block = system.slice(system.indexOf('## Skills'));
    for (const s of TWENTY_SKILLS) expect(block).toContain(s.name);
    if (likely.length > 0) expect(block).toContain(`Likely relevant now: ${likely.join(', ')}`);
    else expect(block).not.toContain('Likely relevant');
  });
});

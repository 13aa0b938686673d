/**
 * The first request of a session, prompt by prompt: how big the system prompt and
 * the tool definitions are (characters / 4, the rough token estimate) and which
 * tools the user's words pre-loaded beyond the core tier. The runtime is the one
 * `tea -p` builds (config from a temp TEA_HOME, memory on, so the `memory` tool is
 * in the catalog), and the request is read off the wire of the scripted model server.
 *
 * The same prompts run again with 20 real-looking skills installed (the `## Skills`
 * block and the `skill` tool join the first request).
 *
 * Run: `node --import tsx bench/first-request.ts` (prints figures; asserts nothing).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encode } from 'gpt-tokenizer';
import { startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';
import { TWENTY_SKILLS, writeSkills } from '../test/support/skills.js';

/** Ordinary first messages, English and Chinese. */
export const PROMPTS: readonly string[] = [
  'add a line to the README saying how to run the tests',
  'fix the failing test in src/parser.ts',
  'what does this project do?',
  'list the files here and summarise the README',
  'show me the git log of the last week',
  'commit my changes with a good message',
  'rename parseArgs to parseArguments everywhere',
  'run the tests and fix whatever fails',
  'fetch https://example.com/changelog and summarise it',
  'how much disk space is left on this machine?',
  'what time is it in Tokyo right now?',
  'find all TODO comments in the code',
  'remember that I prefer tabs over spaces',
  'compute the sha256 of package.json',
  '给 README 加一行，说明如何运行测试',
  '修复 src/parser.ts 里失败的测试',
  '这个项目是做什么的？',
  '查看最近的 git 提交记录',
  '把 config.json 里的端口改成 8080',
  '删除 build 目录下的临时文件',
];

const TARGET = 1500;

interface Row {
  prompt: string;
  system: number;
  tools: number;
  /** o200k tokens of the same text, for comparison. */
  o200k: number;
  loaded: string[];
  /** Tools the words asked for whose schemas did not fit the budget. */
  over: string[];
}

async function measure(withSkills: boolean): Promise<void> {
  const server = await startModelServer();
  const root = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-first-'));
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  for (const d of [home, work]) mkdirSync(d);
  if (withSkills) writeSkills(path.join(home, 'skills'), TWENTY_SKILLS);
  writeFileSync(
    path.join(home, 'config.yaml'),
    'agent:\n  auto_title: false\nmemory:\n  extract: false\n  tune: false\n',
  );
  Object.assign(process.env, {
    HOME: root,
    TEA_HOME: home,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: server.openaiBaseUrl,
    TEA_MODEL: 'bench-model',
    OLLAMA_HOST: 'http://127.0.0.1:9',
  });
  const { createRuntime } = await import('../src/runtime/runtime.js');
  const { toolsMentioned } = await import('../src/tools/loading.js');
  const rt = await createRuntime({ cwd: work, approvals: 'deny', titles: false, userHome: root });
  const rows: Row[] = [];
  try {
    for (const prompt of PROMPTS) {
      server.reset();
      server.script(reply().text('ok'));
      const session = rt.agent.newSession();
      const loaded: string[] = [];
      for await (const e of session.prompt(prompt)) if (e.type === 'tools_loaded') loaded.push(...e.names);
      await session.settled();
      const body = server.requests[0]!.body;
      const messages = body.messages as Array<{ role: string; content: unknown }>;
      const system = messages
        .filter((m) => m.role === 'system')
        .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
        .join('\n');
      rows.push({
        prompt,
        system: Math.ceil(system.length / 4),
        tools: Math.ceil(JSON.stringify(body.tools ?? []).length / 4),
        o200k: encode(system).length + encode(JSON.stringify(body.tools ?? [])).length,
        loaded,
        over: toolsMentioned(rt.tools, prompt).filter((n) => !loaded.includes(n)),
      });
    }
  } finally {
    rt.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
  const width = Math.max(...rows.map((r) => [...r.prompt].length));
  const what = withSkills ? `, ${TWENTY_SKILLS.length} skills installed` : '';
  console.log(
    `first request${what}: system + tool definitions, tokens ≈ characters / 4 (target ≤ ${TARGET})`,
  );
  console.log(`${'prompt'.padEnd(width)}  system  tools  total  o200k  pre-loaded tools`);
  for (const r of rows) {
    const total = r.system + r.tools;
    const pad = ' '.repeat(Math.max(0, width - [...r.prompt].length - cjkCount(r.prompt)));
    console.log(
      `${r.prompt}${pad}  ${String(r.system).padStart(6)}  ${String(r.tools).padStart(5)}  ${String(total).padStart(5)}${total > TARGET ? '!' : ' '} ${String(r.o200k).padStart(5)}  ${r.loaded.join(', ') || '-'}${r.over.length ? ` (over budget: ${r.over.join(', ')})` : ''}`,
    );
  }
  const totals = rows.map((r) => r.system + r.tools);
  const o200k = rows.map((r) => r.o200k);
  console.log(
    `max ${Math.max(...totals)} (o200k ${Math.max(...o200k)}) · median ${[...totals].sort((a, b) => a - b)[Math.floor(totals.length / 2)]} · over ${TARGET}: ${totals.filter((t) => t > TARGET).length} of ${totals.length}`,
  );
}

/** CJK characters take two columns in a terminal. */
function cjkCount(s: string): number {
  return (s.match(/[\u3000-\u9fff\uff00-\uffef]/g) ?? []).length;
}

await measure(false);
await measure(true);

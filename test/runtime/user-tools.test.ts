/**
 * Tools the agent writes at runtime, through the runtime and the scripted model: made
 * in one step and called in the next (its output reaches the model), updated, rolled
 * back, still there for a new runtime on the same home (registered from the manifest,
 * its code loaded on the first call), refused when it does not compile, declares too
 * little or takes a built-in's name, and saved only with approval in ask mode.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { loadConfig } from '../../src/config/load.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { useTempDirs } from '../store/helpers.js';
import { reply } from '../support/script.js';
import { useModelServer } from '../support/use-model-server.js';
import { wireMessages, wireText } from '../support/wire.js';
import { toolSource } from '../tools/user/helpers.js';

const model = useModelServer();
const tempDir = useTempDirs();
const open: Runtime[] = [];
afterEach(async () => {
  for (const rt of open.splice(0)) await rt.close();
  model().reset();
});

async function runtimeAt(home: string, work: string, mode = 'yolo', allow: string[] = []): Promise<Runtime> {
  const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
  const rt = await createRuntime({ config, cwd: work, permissionMode: mode, allow });
  open.push(rt);
  return rt;
}

async function fresh(mode = 'yolo'): Promise<{ rt: Runtime; home: string; work: string }> {
  const root = tempDir();
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(
    path.join(home, 'config.yaml'),
    [
      `main_model: { base_url: ${model().openaiBaseUrl}, api_key: sk-test, model: scripted-model }`,
      'llm: { timeout_s: 5, max_retries: 0 }',
      'agent: { auto_title: false }',
      'memory: { extract: false, tune: false, judge: false }',
    ].join('\n'),
  );
  return { rt: await runtimeAt(home, work, mode), home, work };
}

async function drain(
  events: AsyncIterable<AgentEvent>,
  onApproval?: (e: Extract<AgentEvent, { type: 'approval_request' }>) => void,
): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) {
    out.push(e);
    if (e.type === 'approval_request') onApproval?.(e);
  }
  return out;
}

/** The tool results the model read in request `i`, in order. */
const toolResults = (i: number): string[] =>
  wireMessages(model().requests[i]!.body)
    .filter((m) => m.role === 'tool')
    .map(wireText);
const lastToolResult = (i: number): string => toolResults(i).at(-1)!;
const offered = (i: number): string[] =>
  ((model().requests[i]!.body.tools ?? []) as Array<{ function: { name: string } }>).map(
    (t) => t.function.name,
  );

const V1 = toolSource();
const V2 = toolSource({ body: "return 'v2 counted ' + args.text.length + ' characters';" });

describe('tools the agent writes at runtime', () => {
  it('is created in one step and called in the next; its output reaches the model', async () => {
    const { rt, home } = await fresh();
    model().script(
      reply().toolCall('tool_create', { name: 'echo_words', code: V1 }),
      reply().toolCall('echo_words', { text: 'one two three' }),
      reply().text('It has three words.'),
    );
    const session = rt.sessions.create();
    const events = await drain(session.prompt('write a tool that counts words, then count "one two three"'));
    expect(events.find((e) => e.type === 'done')).toMatchObject({
      reason: 'completed',
      text: 'It has three words.',
    });
    expect(offered(0)).not.toContain('echo_words');
    expect(lastToolResult(1)).toMatch(/^Created echo_words 1\.0\.0 \(approval none\)/);
    // Loaded for this session: its schema goes with the very next request.
    expect(offered(1)).toContain('echo_words');
    expect(events).toContainEqual(expect.objectContaining({ type: 'tools_loaded', names: ['echo_words'] }));
    expect(lastToolResult(2)).toBe('words: 3');
    expect(existsSync(path.join(home, 'tools', 'echo_words', '1.0.0.ts'))).toBe(true);
    // Shared by the runtime's sessions: another session sees it by name.
    expect(rt.tools.get('echo_words')).toMatchObject({ category: 'user', approval: 'none' });
  });

  it('is updated (v2 behaves differently), rolled back (v1 again), and listed with its versions', async () => {
    const { rt } = await fresh();
    model().script(
      reply().toolCall('tool_create', { name: 'echo_words', code: V1 }),
      reply().toolCall('tool_update', { name: 'echo_words', code: V2 }),
      reply().toolCall('echo_words', { text: 'abc de' }),
      reply().toolCall('tool_versions', { name: 'echo_words' }),
      reply().toolCall('tool_rollback', { name: 'echo_words', version: '1.0.0' }),
      reply().toolCall('echo_words', { text: 'abc de' }),
      reply().text('done'),
    );
    await drain(rt.sessions.create().prompt('go'));
    expect(lastToolResult(2)).toMatch(
      /^Updated echo_words 1\.0\.1 .*\nThe previous version 1\.0\.0 stays saved/s,
    );
    expect(lastToolResult(3)).toBe('v2 counted 6 characters');
    expect(lastToolResult(4)).toMatch(
      /^echo_words: 2 version\(s\), current 1\.0\.1 \(\*\)\n {2}1\.0\.0 .*\n\* 1\.0\.1 /,
    );
    expect(lastToolResult(5)).toMatch(/^Rolled back echo_words 1\.0\.0 .*\(It was at 1\.0\.1\.\)/s);
    expect(lastToolResult(6)).toBe('words: 2');
  });

  it('survives a new runtime: registered from its manifest, its code loaded on the first call', async () => {
    const { rt, home, work } = await fresh();
    model().script(reply().toolCall('tool_create', { name: 'echo_words', code: V1 }), reply().text('made'));
    await drain(rt.sessions.create().prompt('make it'));
    await rt.close();
    open.splice(open.indexOf(rt), 1);

    const again = await runtimeAt(home, work);
    expect(again.tools.get('echo_words')).toMatchObject({ description: 'Counts the words of a text.' });
    expect(again.tools.loaded('echo_words')).toBeUndefined();
    model().reset();
    model().script(reply().toolCall('echo_words', { text: 'a b' }), reply().text('two'));
    await drain(again.sessions.create().prompt('count a b with echo_words'));
    expect(lastToolResult(1)).toBe('words: 2');
    expect(again.tools.loaded('echo_words')).toBeDefined();
  });

  it("refuses code that does not compile with the compiler's line and column, and saves nothing", async () => {
    const { rt, home } = await fresh();
    const broken = toolSource({ body: 'return args.text +* 1;' });
    const line = broken.split('\n').findIndex((l) => l.includes('+*')) + 1;
    model().script(
      reply().toolCall('tool_create', { name: 'echo_words', code: broken }),
      reply().text('oops'),
    );
    await drain(rt.sessions.create().prompt('go'));
    expect(lastToolResult(1)).toMatch(
      new RegExp(
        `^\\[ERROR\\] echo_words was not saved: it does not compile:\\necho_words\\.ts:${line}:\\d+: `,
      ),
    );
    expect(existsSync(path.join(home, 'tools'))).toBe(false);
    expect(rt.tools.has('echo_words')).toBe(false);
  });

  it('refuses an invalid schema, a tool that spawns under approval none, and a built-in name', async () => {
    const { rt } = await fresh();
    const spawns = toolSource({
      head: "import { spawnSync } from 'node:child_process';",
      body: "return String(spawnSync('ls').stdout);",
    });
    model().script(
      reply().toolCall('tool_create', {
        name: 'echo_words',
        code: toolSource({ parameters: 'z.array(z.string())' }),
      }),
      reply().toolCall('tool_create', { name: 'echo_words', code: spawns }),
      reply().toolCall('tool_create', { name: 'grep', code: toolSource({ name: 'grep' }) }),
      reply().text('none of them'),
    );
    await drain(rt.sessions.create().prompt('go'));
    expect(lastToolResult(1)).toMatch(
      /its parameters must be z\.object\(\{\.\.\.\}\), not z\.array\(\.\.\.\)/,
    );
    expect(lastToolResult(2)).toMatch(
      /^\[ERROR\] echo_words was not saved: it declares approval 'none', but its code needs 'exec': require\("node:child_process"\) \(node:child_process starts processes or threads\)\nHint: declare approval: 'exec'/,
    );
    expect(lastToolResult(3)).toBe(
      '[ERROR] cannot use the name grep: it is the name of the built-in tool grep (search)\nHint: choose another name',
    );
    expect(rt.tools.get('grep')?.category).toBe('search');
  });

  it('asks before saving in ask mode, showing the code; a rejection saves nothing', async () => {
    const { rt, home } = await fresh('ask');
    model().script(
      reply().toolCall('tool_create', { name: 'echo_words', code: V1 }),
      reply().text('not saved'),
    );
    const session = rt.sessions.create();
    const asked: Array<Extract<AgentEvent, { type: 'approval_request' }>> = [];
    await drain(session.prompt('go'), (e) => {
      asked.push(e);
      session.approve(e.requestId, 'reject');
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      tool: 'tool_create',
      approval: 'exec',
      subject: 'echo_words',
      args: { code: V1 },
    });
    expect(lastToolResult(1)).toMatch(/^\[DENIED\] The user rejected tool_create \(echo_words\)/);
    expect(existsSync(path.join(home, 'tools'))).toBe(false);
    expect(rt.tools.has('echo_words')).toBe(false);
  });

  it('--allow rules may name a saved user tool', async () => {
    const { rt, home, work } = await fresh();
    const writer = toolSource({ name: 'note_down', approval: 'write', body: "return 'noted';" });
    model().script(
      reply().toolCall('tool_create', { name: 'note_down', code: writer }),
      reply().text('made'),
    );
    await drain(rt.sessions.create().prompt('make it'));
    const asking = await runtimeAt(home, work, 'ask', ['note_down']);
    model().reset();
    model().script(reply().toolCall('note_down', { text: 'x' }), reply().text('ok'));
    const events = await drain(asking.sessions.create().prompt('note x'));
    expect(events.some((e) => e.type === 'approval_request')).toBe(false);
    expect(lastToolResult(1)).toBe('noted');
    await expect(runtimeAt(home, work, 'ask', ['note_dow'])).rejects.toThrow(
      /unknown tool "note_dow".*note_down/,
    );
  });

  it('runs a user tool under its class: in ask mode a write tool is asked about, a none tool is not', async () => {
    const { rt } = await fresh('ask');
    const writer = toolSource({
      name: 'note_down',
      approval: 'write',
      head: "import { writeFileSync } from 'node:fs';\nimport path from 'node:path';",
      body: "writeFileSync(path.join(ctx.cwd, 'note.txt'), args.text); return 'noted';",
    });
    model().script(
      reply().toolCall('tool_create', { name: 'echo_words', code: V1 }),
      reply().toolCall('tool_create', { name: 'note_down', code: writer }),
      reply().toolCall('echo_words', { text: 'x y' }),
      reply().toolCall('note_down', { text: 'hello' }),
      reply().text('done'),
    );
    const session = rt.sessions.create();
    const asked: string[] = [];
    await drain(session.prompt('go'), (e) => {
      asked.push(e.tool);
      session.approve(e.requestId, 'once');
    });
    expect(asked).toEqual(['tool_create', 'tool_create', 'note_down']);
    expect(lastToolResult(3)).toBe('words: 2');
    expect(lastToolResult(4)).toBe('noted');
  });
});

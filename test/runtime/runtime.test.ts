/**
 * The composition root through its public surface: a runtime over a temp home and
 * the scripted model server, its sessions service, and the errors it reports.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { loadConfig } from '../../src/config/load.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { useTempDirs } from '../store/helpers.js';
import { reply } from '../support/script.js';
import { useModelServer } from '../support/use-model-server.js';
import { wireMessages, wireText } from '../support/wire.js';

const model = useModelServer();

const tempDir = useTempDirs();
const open: Runtime[] = [];
afterEach(async () => {
  for (const rt of open.splice(0)) await rt.close();
  model().reset();
});

async function runtimeIn(
  opts: Parameters<typeof createRuntime>[0] = {},
  yaml = '',
): Promise<{
  rt: Runtime;
  home: string;
  work: string;
}> {
  const root = tempDir();
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(
    path.join(home, 'config.yaml'),
    [
      `main_model: { base_url: ${model().openaiBaseUrl}, api_key: sk-test, model: scripted-model }`,
      `profiles:`,
      `  other: { base_url: ${model().openaiBaseUrl}, api_key: sk-test, model: other-model }`,
      'llm: { timeout_s: 5, max_retries: 0 }',
      'agent: { auto_title: false }',
      'memory: { extract: false, tune: false, judge: false }',
      yaml,
    ].join('\n'),
  );
  const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
  const rt = await createRuntime({ config, cwd: work, ...opts });
  open.push(rt);
  return { rt, home, work };
}

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('createRuntime', () => {
  it('opens nothing before the first session: the database file appears with it', async () => {
    const { rt, home } = await runtimeIn();
    expect(existsSync(path.join(home, 'tea.db'))).toBe(false);
    rt.sessions.create();
    expect(existsSync(path.join(home, 'tea.db'))).toBe(true);
  });

  it('runs a prompt end to end and keeps the session', async () => {
    const { rt, work } = await runtimeIn();
    model().script(reply().text('hello from the model').usage(12, 3));
    const session = rt.sessions.create({ title: 'first' });
    const events = await collect(session.prompt('say hello'));
    const done = events.find((e) => e.type === 'done');
    expect(done).toMatchObject({ type: 'done', reason: 'completed', text: 'hello from the model' });
    expect(rt.sessions.get(session.id)).toMatchObject({ title: 'first', cwd: work, profile: 'main_model' });
    expect(rt.sessions.messages(session.id).map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(rt.sessions.usage(session.id)).toMatchObject({ inputTokens: 12, outputTokens: 3 });
    expect(rt.sessions.list().map((s) => s.id)).toEqual([session.id]);
  });

  it('answers approvals through the same events', async () => {
    const { rt, work } = await runtimeIn({ permissionMode: 'ask' });
    model().script(
      reply().toolCall('write_file', { path: 'note.txt', content: 'approved' }),
      reply().text('written'),
    );
    const session = rt.sessions.create();
    const seen: string[] = [];
    for await (const e of session.prompt('write the note')) {
      seen.push(e.type);
      if (e.type === 'approval_request') session.approve(e.requestId, 'once');
    }
    expect(seen).toContain('approval_request');
    expect(readFileSync(path.join(work, 'note.txt'), 'utf8')).toBe('approved');
  });

  it('builds one agent per profile and approvals, on the profile asked for', async () => {
    const { rt } = await runtimeIn();
    expect(rt.agentFor('other')).toBe(rt.agentFor('other'));
    expect(rt.agentFor('other', { approvals: 'deny' })).not.toBe(rt.agentFor('other'));
    model().script(reply().text('from other'));
    const session = rt.sessions.create({ profile: 'other' });
    await collect(session.prompt('hi'));
    expect(model().requests.at(-1)?.body.model).toBe('other-model');
    expect(rt.sessions.get(session.id)?.profile).toBe('other');
  });

  it('the memory tool writes through the lazy memory, and the next session recalls it', async () => {
    const { rt } = await runtimeIn({ permissionMode: 'yolo' });
    model().script(reply().text('nothing remembered yet'));
    await collect(rt.sessions.create().prompt('hi'));
    expect(wireText(wireMessages(model().requests.at(-1)!.body)[0]!)).not.toContain('green tea');
    model().script(
      reply().toolCall('memory', { action: 'add', content: 'The user drinks green tea every morning' }),
      reply().toolCall('memory', { action: 'list' }),
      reply().text('noted'),
    );
    await collect(rt.sessions.create().prompt('remember that I drink green tea every morning'));
    const results = wireMessages(model().requests.at(-1)!.body)
      .filter((m) => m.role === 'tool')
      .map(wireText);
    expect(results).toEqual([
      expect.stringContaining('Remembered: #1'),
      expect.stringContaining('The user drinks green tea every morning'),
    ]);
    model().script(reply().text('green tea'));
    await collect(rt.sessions.create().prompt('what do I drink in the morning?'));
    expect(wireText(wireMessages(model().requests.at(-1)!.body)[0]!)).toContain('green tea every morning');
  });

  it('--model replaces the active profile’s model id', async () => {
    const { rt } = await runtimeIn({ model: 'override-model' });
    model().script(reply().text('ok'));
    await collect(rt.sessions.create().prompt('hi'));
    expect(model().requests.at(-1)?.body.model).toBe('override-model');
  });

  it('reports its callers’ mistakes as RuntimeError with a code', async () => {
    await expect(runtimeIn({ allow: ['bash_typo'] })).rejects.toMatchObject({
      name: 'RuntimeError',
      code: 'usage',
      message: expect.stringContaining('unknown tool "bash_typo"'),
    });
    await expect(runtimeIn({ permissionMode: 'sometimes' })).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringContaining('unknown permission mode sometimes'),
    });
    await expect(runtimeIn({ addDir: ['/no/such/dir/anywhere'] })).rejects.toMatchObject({
      code: 'usage',
      message: '--add-dir /no/such/dir/anywhere: no such directory',
    });
    const { rt } = await runtimeIn();
    expect(() => rt.sessions.open('zzzzzzzz-none')).toThrow(
      expect.objectContaining({ code: 'not_found' }) as Error,
    );
    await expect(rt.models.resolve('no-such-profile')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('says no_model when a model is first needed; sessions run rules without one', async () => {
    const root = tempDir();
    const config = await loadConfig({ home: root, cwd: root, env: {}, detectOllama: false });
    const rt = await createRuntime({ config, cwd: root });
    open.push(rt);
    expect(rt.sessions.list()).toEqual([]);
    expect(() => rt.models.requireModel()).toThrow(expect.objectContaining({ code: 'no_model' }) as Error);
    expect(() => rt.provider).toThrow(expect.objectContaining({ code: 'no_model' }) as Error);
    // A session opens: a prompt a rule answers runs, any other is told how to configure a model.
    const session = rt.sessions.create();
    const ran = await collect(session.prompt('/time UTC'));
    expect(ran.at(-1)).toMatchObject({ type: 'done', reason: 'completed' });
    const refused = await collect(session.prompt('hello'));
    expect(refused[0]).toMatchObject({ type: 'error', kind: 'no_model' });
    expect((refused[0] as { message: string }).message).toMatch(/No model is configured[\s\S]*\/read <path>/);
    expect(rt.sessions.get(session.id)?.model).toBe('none');
  });

  it('rejects options the CLI would refuse, as usage errors', async () => {
    await expect(runtimeIn({ sandbox: 'maybe' as never })).rejects.toMatchObject({
      code: 'usage',
      message: 'unknown sandbox mode maybe: expected auto, on, off',
    });
    for (const maxTurns of [0, -3, 1.5])
      await expect(runtimeIn({ maxTurns })).rejects.toMatchObject({ code: 'usage' });
    await expect(runtimeIn({ profile: 'no-such-profile' })).rejects.toMatchObject({
      name: 'RuntimeError',
      code: 'usage',
      message: expect.stringContaining('Unknown profile "no-such-profile"'),
    });
  });
});

describe('sessions service', () => {
  it('renames, searches, forks up to a message and deletes', async () => {
    const { rt } = await runtimeIn();
    model().script(reply().text('the answer is forty-two'), reply().text('second answer'));
    const session = rt.sessions.create();
    await collect(session.prompt('what is the answer?'));
    await collect(session.prompt('and again?'));
    rt.sessions.rename(session.id, 'Deep Thought');
    expect(rt.sessions.get(session.id)?.title).toBe('Deep Thought');

    expect(rt.sessions.search('forty-two', 10)).toEqual([
      expect.objectContaining({
        id: session.id,
        title: 'Deep Thought',
        snippet: expect.stringContaining('forty-two'),
      }),
    ]);
    expect(rt.sessions.search('thought')).toEqual([expect.objectContaining({ id: session.id })]);

    const messages = rt.sessions.messages(session.id);
    expect(messages).toHaveLength(4);
    // By a unique prefix, as `open` takes it.
    const fork = rt.sessions.fork(session.id.slice(0, 12), { upTo: messages[1]!.id });
    expect(fork.title).toBe('Deep Thought (fork)');
    expect(rt.sessions.messages(fork.id).map((m) => m.role)).toEqual(['user', 'assistant']);

    // The fork goes on alone: a turn there leaves the original as it was.
    model().script(reply().text('fork answer'));
    await collect(rt.sessions.open(fork.id).prompt('in the fork'));
    expect(rt.sessions.messages(fork.id)).toHaveLength(4);
    expect(rt.sessions.messages(session.id).map((m) => m.id)).toEqual(messages.map((m) => m.id));

    expect(() => rt.sessions.fork(session.id, { upTo: 999_999 })).toThrow(/has no message 999999/);
    expect(rt.sessions.delete(fork.id)).toBe(true);
    expect(rt.sessions.get(fork.id)).toBeUndefined();
    expect(rt.sessions.count()).toBe(1);
  });

  it('a fork carries the tool-call log of the calls it keeps', async () => {
    const { rt, work } = await runtimeIn({ permissionMode: 'yolo' });
    writeFileSync(path.join(work, 'a.txt'), 'alpha');
    model().script(reply().toolCall('read_file', { path: 'a.txt' }), reply().text('read it'));
    const session = rt.sessions.create();
    await collect(session.prompt('read a.txt'));
    const fork = rt.sessions.fork(session.id);
    const calls = rt.sessions.toolCalls(fork.id);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: 'read_file' });
    expect(calls[0]?.state).toBe('completed');
  });
});

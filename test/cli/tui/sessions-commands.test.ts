/**
 * /new, /sessions, /resume, /fork, /profile and /model against a real runtime (temp
 * home, real SQLite, the scripted model server); the screen is a recording host.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import type { Session } from '../../../src/agent/index.js';
import { builtinCommands } from '../../../src/cli/tui/commands/index.js';
import { loadConfig } from '../../../src/config/load.js';
import { createRuntime } from '../../../src/runtime/runtime.js';
import { reply } from '../../support/script.js';
import { useModelServer } from '../../support/use-model-server.js';
import { run, useWorkspace } from './test-host.js';

const model = useModelServer();
const workspace = useWorkspace(model);
const commands = builtinCommands();

async function turn(session: Session, text: string): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of session.prompt(text)) out.push(e);
  return out;
}

describe('/new, /sessions, /resume, /fork', () => {
  it('/new switches to a fresh session on the same profile; the old one stays listed', async () => {
    const { rt, host } = await workspace();
    const first = host.session().id;
    await run(commands, host, '/new');
    expect(host.switches).toHaveLength(1);
    expect(host.session().id).not.toBe(first);
    expect(host.session().row.profile).toBe('main_model');
    expect(rt.sessions.list({ cwd: rt.cwd }).map((s) => s.id)).toContain(first);
    expect(host.last).toMatchObject({ tone: 'success', text: expect.stringContaining('New session') });
  });

  it('/sessions lists newest first with title, age and message count; picking one switches to it', async () => {
    const { rt, host, work } = await workspace();
    model().script(reply().text('first answer'));
    await turn(host.session(), 'fix the parser');
    const older = host.session().id;
    const newer = rt.sessions.create({ cwd: work, title: 'Second thing' });
    await host.switchTo(newer);
    // Another workspace's session is not listed.
    rt.sessions.create({ cwd: '/', title: 'elsewhere' });
    host.answers.push((opts) => opts.items.find((i) => i.label.includes('fix the parser'))?.value);
    await run(commands, host, '/sessions');
    const picker = host.picks[0]!;
    expect(picker).toMatchObject({ search: true, selected: newer.id });
    expect(picker.items.map((i) => i.label)).toEqual(['● Second thing', 'fix the parser']);
    expect(picker.items[1]!.description).toMatch(/^just now · 2 messages · [0-9a-f]{8}$/);
    expect(host.session().id).toBe(older);
    expect(host.session().history).toHaveLength(2);
  });

  it('/sessions closed with Esc changes nothing', async () => {
    const { host } = await workspace();
    const before = host.session().id;
    await run(commands, host, '/sessions');
    expect(host.picks).toHaveLength(1);
    expect(host.switches).toEqual([]);
    expect(host.session().id).toBe(before);
  });

  it('/resume <prefix> switches; an unknown prefix says so; no argument opens the picker', async () => {
    const { rt, host, work } = await workspace();
    const other = rt.sessions.create({ cwd: work, title: 'target' });
    await run(commands, host, `/resume ${other.id.slice(0, 8)}`);
    expect(host.session().id).toBe(other.id);
    await run(commands, host, '/resume zzzzzzzz');
    expect(host.last.tone).toBe('error');
    expect(host.last.text).toMatch(/zzzzzzzz/);
    expect(host.session().id).toBe(other.id);
    await run(commands, host, '/resume');
    expect(host.picks).toHaveLength(1);
    const complete = await commands.find((c) => c.name === 'resume')!.complete!(other.id.slice(0, 4), host);
    expect(complete.map((i) => i.value)).toContain(other.id.slice(0, 8));
  });

  it('/fork copies the transcript into a new session and switches; the original is unchanged', async () => {
    const { rt, host } = await workspace();
    model().script(reply().text('the answer'), reply().text('only in the fork'));
    await turn(host.session(), 'question one');
    const original = host.session().id;
    await run(commands, host, '/fork');
    const fork = host.session();
    expect(fork.id).not.toBe(original);
    expect(fork.history.map((m) => m.role)).toEqual(['user', 'assistant']);
    await turn(fork, 'question two');
    expect(rt.sessions.messageCount(original)).toBe(2);
    expect(rt.sessions.messageCount(fork.id)).toBe(4);
    expect(rt.sessions.get(fork.id)?.title).toMatch(/\(fork\)$/);
  });
});

describe('/profile and /model', () => {
  it('/profile other reopens the session on it: the row says so and the next request uses its model', async () => {
    const { rt, host } = await workspace();
    const id = host.session().id;
    await run(commands, host, '/profile other');
    expect(host.session().id).toBe(id);
    expect(rt.sessions.get(id)).toMatchObject({ profile: 'other', model: 'other-model' });
    expect(host.refreshed).toBe(1);
    expect(host.last.text).toContain('other-model on profile other');
    model().script(reply().text('ok'));
    await turn(host.session(), 'hi');
    expect(model().requests.at(-1)!.body.model).toBe('other-model');
  });

  it('/profile with no argument picks among the profiles; an unknown name is refused with the list', async () => {
    const { host } = await workspace();
    await run(commands, host, '/profile');
    expect(host.picks[0]!.items.map((i) => [i.value, i.description])).toEqual([
      ['main_model', 'scripted-model'],
      ['cheap_model', 'scripted-model'], // the config's default cheap model is the main one
      ['other', 'other-model'],
    ]);
    expect(host.picks[0]!.selected).toBe('main_model');
    await run(commands, host, '/profile othr');
    expect(host.last).toMatchObject({ tone: 'error' });
    expect(host.last.text).toContain('did you mean other');
    await run(commands, host, '/profile main_model');
    expect(host.last).toMatchObject({ tone: 'dim', text: expect.stringContaining('already') });
    expect(host.switches).toEqual([]);
  });

  it('/model <a profile’s model> switches to that profile', async () => {
    const { rt, host } = await workspace();
    await run(commands, host, '/model other-model');
    expect(rt.sessions.get(host.session().id)?.profile).toBe('other');
  });

  it('/model <new id> runs the current endpoint with that id, and a later process reopens it so', async () => {
    const { rt, host, home, work } = await workspace();
    const id = host.session().id;
    await run(commands, host, '/model brand-new-model');
    expect(rt.sessions.get(id)).toMatchObject({
      profile: 'main_model@brand-new-model',
      model: 'brand-new-model',
    });
    model().script(reply().text('ok'), reply().text('again'));
    await turn(host.session(), 'hi');
    expect(model().requests.at(-1)!.body.model).toBe('brand-new-model');
    const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
    const later = await createRuntime({ config, cwd: work, warn: () => {} });
    try {
      await turn(later.sessions.open(id), 'and again');
      expect(model().requests.at(-1)!.body.model).toBe('brand-new-model');
    } finally {
      await later.close();
    }
  });

  it('/model refuses ids that cannot be model ids', async () => {
    const { rt, host } = await workspace();
    for (const bad of ['a b', 'x@y', 'tab\there', 'nul\u0000id']) {
      await run(commands, host, `/model ${bad}`);
      expect(host.last.tone, bad).toBe('error');
    }
    expect(rt.sessions.get(host.session().id)?.profile).toBe('main_model');
    expect(host.switches).toEqual([]);
    // A stored `base@model` name is a profile only when its base is one.
    expect(rt.models.has('nosuch@gpt-x')).toBe(false);
    expect(rt.models.has('other@gpt-x')).toBe(true);
  });
});

/**
 * Config options over ACP against the built `tea acp` with a real ACP SDK client:
 * model and profile switches change the model the scripted server sees (and stay with
 * the session in a later process), the permission and work modes stay in step with the
 * legacy session modes, and bad ids and values get clear ACP errors.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { type AcpPeer, initialize, newSession, prompt, updatesOf, waitFor } from './peer.js';
import { useAcp } from './setup.js';

const setup = useAcp({
  extra: (t) =>
    `profiles:\n  other:\n    provider: openai\n    base_url: ${t.server.openaiBaseUrl}\n    model: other-model\n`,
});
const { t } = setup;

async function peer(): Promise<AcpPeer> {
  const p = setup.start();
  await initialize(p);
  return p;
}

type Options = acp.SessionConfigOption[];

const current = (options: Options | null | undefined, id: string): unknown =>
  options?.find((o) => o.id === id)?.currentValue;

const values = (options: Options | null | undefined, id: string): string[] => {
  const o = options?.find((x) => x.id === id);
  return o?.type === 'select' ? (o.options as acp.SessionConfigSelectOption[]).map((v) => v.value) : [];
};

function set(
  p: AcpPeer,
  sessionId: string,
  configId: string,
  value: string,
): Promise<acp.SetSessionConfigOptionResponse> {
  return p.agent.request('session/set_config_option', { sessionId, configId, value });
}

describe('tea acp: config options', () => {
  it('switches the model by config option: the next prompt, and a later process, run on it', async () => {
    const p = await peer();
    const s = await newSession(p, setup.work);
    expect(s.configOptions?.map((o) => [o.id, o.category])).toEqual([
      ['mode', 'mode'],
      ['work_mode', '_work_mode'],
      ['model', 'model'],
      ['profile', '_profile'],
    ]);
    expect(current(s.configOptions, 'model')).toBe('scripted-model');
    expect(values(s.configOptions, 'model')).toEqual(
      expect.arrayContaining(['scripted-model', 'other-model']),
    );
    expect(values(s.configOptions, 'profile')).toEqual(expect.arrayContaining(['other']));

    t.server.script(reply().text('from the first model'));
    await prompt(p, s.sessionId, 'one');
    expect(t.server.requests.at(-1)!.body.model).toBe('scripted-model');

    const switched = await set(p, s.sessionId, 'model', 'other-model');
    expect(current(switched.configOptions, 'model')).toBe('other-model');
    expect(current(switched.configOptions, 'profile')).toBe('other');
    t.server.script(reply().text('from the other model'));
    await prompt(p, s.sessionId, 'two');
    expect(t.server.requests.at(-1)!.body.model).toBe('other-model');
    expect(await p.close()).toBe(0);

    // The choice is stored with the session.
    const later = await peer();
    const resumed = await later.agent.request('session/resume', {
      sessionId: s.sessionId,
      cwd: setup.work,
      mcpServers: [],
    });
    expect(current(resumed.configOptions, 'model')).toBe('other-model');
    t.server.script(reply().text('still the other model'));
    await prompt(later, s.sessionId, 'three');
    expect(t.server.requests.at(-1)!.body.model).toBe('other-model');

    // And back by profile.
    const back = await set(later, s.sessionId, 'profile', current(s.configOptions, 'profile') as string);
    expect(current(back.configOptions, 'model')).toBe('scripted-model');
    t.server.script(reply().text('first model again'));
    await prompt(later, s.sessionId, 'four');
    expect(t.server.requests.at(-1)!.body.model).toBe('scripted-model');
  });

  it('keeps the permission mode, the work mode and the legacy session modes in step', async () => {
    const p = await peer();
    const { sessionId, configOptions } = await newSession(p, setup.work);
    expect(current(configOptions, 'mode')).toBe('ask');
    expect(current(configOptions, 'work_mode')).toBe('develop');

    // Config option → the legacy picker hears current_mode_update.
    const ro = await set(p, sessionId, 'mode', 'read-only');
    expect(current(ro.configOptions, 'mode')).toBe('read-only');
    await waitFor(() => updatesOf(p, 'current_mode_update').length === 1, 'the mode update');
    expect(updatesOf(p, 'current_mode_update')[0]!.currentModeId).toBe('read-only');

    // Legacy session/set_mode → clients of config options hear config_option_update.
    await p.agent.request('session/set_mode', { sessionId, modeId: 'auto-edit' });
    await waitFor(() => updatesOf(p, 'config_option_update').length === 1, 'the config update');
    expect(current(updatesOf(p, 'config_option_update')[0]!.configOptions, 'mode')).toBe('auto-edit');

    // A work mode sets its permission mode too.
    const design = await set(p, sessionId, 'work_mode', 'design');
    expect(current(design.configOptions, 'work_mode')).toBe('design');
    expect(current(design.configOptions, 'mode')).toBe('read-only');

    // The /mode command changes them too: told as a config update after it answers.
    await prompt(p, sessionId, '/mode docs');
    const last = updatesOf(p, 'config_option_update').at(-1)!;
    expect(current(last.configOptions, 'work_mode')).toBe('docs');
    expect(current(last.configOptions, 'mode')).toBe('auto-edit');
    expect(updatesOf(p, 'current_mode_update').at(-1)!.currentModeId).toBe('auto-edit');
  });

  it('refuses unknown options and values, booleans, missing sessions and a switch mid-prompt', async () => {
    const p = await peer();
    const { sessionId } = await newSession(p, setup.work);
    await expect(set(p, sessionId, 'temperature', 'hot')).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        'unknown config option "temperature": this session has mode, work_mode, model, profile',
      ),
    });
    await expect(set(p, sessionId, 'model', 'gpt-9')).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/unknown model "gpt-9": use one of .*other-model/),
    });
    await expect(set(p, sessionId, 'work_mode', 'party')).rejects.toMatchObject({ code: -32602 });
    await expect(set(p, sessionId, 'mode', 'reckless')).rejects.toMatchObject({ code: -32602 });
    await expect(
      p.agent.request('session/set_config_option', {
        sessionId,
        configId: 'mode',
        type: 'boolean',
        value: true,
      }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('mode takes one of its values, not a boolean'),
    });
    await expect(set(p, 'no-such-session', 'mode', 'ask')).rejects.toMatchObject({ code: -32002 });

    t.server.script(reply().text('a slow answer').holdUntil('answer'));
    const before = t.server.requests.length;
    const running = prompt(p, sessionId, 'slowly');
    await t.server.waitForRequests(before + 1); // the turn runs until the model is released
    await expect(set(p, sessionId, 'model', 'other-model')).rejects.toMatchObject({
      code: -32600,
      message: expect.stringContaining('before switching the model or profile'),
    });
    t.server.release('answer');
    await running;
    // Nothing was switched.
    t.server.script(reply().text('ok'));
    await prompt(p, sessionId, 'which model?');
    expect(t.server.requests.at(-1)!.body.model).toBe('scripted-model');
  });
});

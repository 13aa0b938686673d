/**
 * `ask_user` in `tea acp`: a client that offers form elicitation gets the question as
 * `elicitation/create` (tied to the tool call) and the model gets what the user said;
 * decline and cancel give the model a plain "not answered"; a client without it gets
 * today's behaviour (the model is told nobody can answer now).
 */
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { type AcpPeer, initialize, newSession, prompt, updatesOf, waitFor } from './peer.js';
import { useAcp } from './setup.js';

const setup = useAcp();
const { t } = setup;

async function session(elicitation: boolean): Promise<{ p: AcpPeer; sessionId: string }> {
  const p = setup.start();
  await initialize(p, false, elicitation ? { elicitation: { form: {} } } : {});
  const { sessionId } = await newSession(p, setup.work);
  return { p, sessionId };
}

/** Runs one prompt in which the model asks `args` and then says 'OK.'; returns the ask_user result it got. */
async function ask(p: AcpPeer, sessionId: string, args: Record<string, unknown>): Promise<string> {
  const before = t.server.requests.length;
  t.server.script(reply().toolCall('ask_user', args), reply().text('OK.'));
  expect((await prompt(p, sessionId, 'paint it')).stopReason).toBe('end_turn');
  const tool = wireMessages(t.server.requests[before + 1]!.body).filter((m) => m.role === 'tool');
  return wireText(tool.at(-1)!);
}

describe('tea acp asks the user through elicitation', () => {
  it('accept: the form carries the question, tied to the call, and the model gets the answer', async () => {
    const { p, sessionId } = await session(true);
    p.onElicit = () => ({ action: 'accept', content: { answer: 'teal' } });
    const result = await ask(p, sessionId, { question: 'Which color?' });
    expect(result).toBe('The user answered: teal');
    expect(p.elicitations).toHaveLength(1);
    const callId = updatesOf(p, 'tool_call')[0]!.toolCallId;
    expect(p.elicitations[0]).toEqual({
      mode: 'form',
      sessionId,
      toolCallId: callId,
      message: 'Which color?',
      requestedSchema: {
        type: 'object',
        properties: { answer: { type: 'string', title: 'Answer', description: 'Which color?' } },
        required: ['answer'],
      },
    });
  });

  it('with options: a choice among them, or an answer of the user’s own', async () => {
    const { p, sessionId } = await session(true);
    p.onElicit = () => ({ action: 'accept', content: { choice: 'blue' } });
    expect(await ask(p, sessionId, { question: 'Which color?', options: ['red', 'blue'] })).toBe(
      'The user answered: blue',
    );
    const schema = (p.elicitations[0] as { requestedSchema: acp.ElicitationSchema }).requestedSchema;
    expect(schema.properties?.choice).toMatchObject({
      type: 'string',
      oneOf: [
        { const: 'red', title: 'red' },
        { const: 'blue', title: 'blue' },
      ],
    });
    expect(schema.required ?? []).toEqual([]);
    p.onElicit = () => ({ action: 'accept', content: { choice: 'red', answer: 'green, actually' } });
    expect(await ask(p, sessionId, { question: 'Which color?', options: ['red', 'blue'] })).toBe(
      'The user answered: green, actually',
    );
  });

  it('decline, cancel, an empty form, a failed request: the model is told plainly that the user did not answer', async () => {
    const { p, sessionId } = await session(true);
    p.onElicit = () => ({ action: 'decline' });
    expect(await ask(p, sessionId, { question: 'Which color?' })).toMatch(
      /^The user answered: nothing — the user declined to answer\. Do not ask again;/,
    );
    p.onElicit = () => ({ action: 'cancel' });
    expect(await ask(p, sessionId, { question: 'Which size?' })).toMatch(
      /^The user answered: nothing — the user dismissed the question without answering\. Make the most reasonable assumption/,
    );
    p.onElicit = () => ({ action: 'accept', content: {} });
    expect(await ask(p, sessionId, { question: 'Which shape?' })).toBe(
      'The user answered: nothing — the user submitted an empty answer.',
    );
    p.onElicit = () => {
      throw acp.RequestError.internalError({}, 'the form broke');
    };
    expect(await ask(p, sessionId, { question: 'Which name?' })).toMatch(
      /^The user answered: nothing — the editor could not ask the user \(.*the form broke.*\)\./,
    );
    expect(p.elicitations.map((e) => e.message)).toEqual([
      'Which color?',
      'Which size?',
      'Which shape?',
      'Which name?',
    ]);
  });

  it('a cancelled turn cancels the open question', async () => {
    const { p, sessionId } = await session(true);
    let cancelled = false;
    p.onElicit = (_req, signal) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => {
          cancelled = true;
          resolve({ action: 'cancel' });
        });
      });
    t.server.script(reply().toolCall('ask_user', { question: 'Which color?' }));
    const answer = prompt(p, sessionId, 'paint it');
    await waitFor(() => p.elicitations.length === 1, 'the question');
    await p.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await answer).stopReason).toBe('cancelled');
    await waitFor(() => cancelled, 'the elicitation request to be cancelled');
  });

  it('a client without elicitation: the model is told nobody can answer, as before', async () => {
    const { p, sessionId } = await session(false);
    expect(await ask(p, sessionId, { question: 'Which color?' })).toContain(
      'The editor cannot answer questions during a turn',
    );
    expect(p.elicitations).toEqual([]);
  });
});

/**
 * A finished request leaves nothing behind: a listener on the request's abort signal
 * (which the fetch Request's finalizer keeps) held every turn's Session — and so its
 * whole history — for good, and one long session grew by megabytes a turn.
 * A continued chat session is kept between its requests on purpose, but only among
 * the last IDLE_CHAT_SESSIONS idle ones: past that it goes too.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import type { Session } from '../../src/agent/session.js';
import { IDLE_CHAT_SESSIONS } from '../../src/server/idle-sessions.js';
import { reply } from '../support/script.js';
import { startTestServer, type TestServer } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

/** Full collections across a few turns of the event loop (WeakRefs clear between jobs). */
async function collect(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
}

/** WeakRefs to every Session the agents open while `run` runs. */
async function sessionsOpenedBy(run: () => Promise<void>): Promise<WeakRef<Session>[]> {
  const refs: WeakRef<Session>[] = [];
  const opened = (s: Session) => {
    refs.push(new WeakRef(s));
    return s;
  };
  const newSession = Agent.prototype.newSession;
  const resumeSession = Agent.prototype.resumeSession;
  const spies = [
    vi.spyOn(Agent.prototype, 'newSession').mockImplementation(function (this: Agent, ...a) {
      return opened(newSession.apply(this, a));
    }),
    vi.spyOn(Agent.prototype, 'resumeSession').mockImplementation(function (this: Agent, ...a) {
      return opened(resumeSession.apply(this, a));
    }),
  ];
  try {
    await run();
  } finally {
    for (const s of spies) s.mockRestore();
  }
  return refs;
}

/** Chat turns on new sessions, enough to push every earlier idle session out. */
async function otherChats(): Promise<void> {
  for (let i = 0; i < IDLE_CHAT_SESSIONS; i++) {
    t.model.script(reply().text(`other ${i}`));
    const res = await t.json('POST', '/v1/chat/completions', {
      messages: [{ role: 'user', content: `other question ${i}` }],
    });
    expect(res.status).toBe(200);
  }
}

describe('nothing outlives a request', () => {
  it('a continued chat session is reused, kept while idle, and collected once pushed out', async () => {
    const refs = await sessionsOpenedBy(async () => {
      let sessionId: string | undefined;
      for (let i = 0; i < 3; i++) {
        t.model.script(reply().text(`answer ${i}`));
        const res = await t.json<{ session_id: string }>('POST', '/v1/chat/completions', {
          messages: [{ role: 'user', content: `question ${i}` }],
          ...(sessionId ? { session_id: sessionId } : {}),
        });
        expect(res.status).toBe(200);
        sessionId = res.body.session_id;
      }
    });
    // one Session for the three turns: the later requests take it from the idle ones
    expect(refs).toHaveLength(1);
    await collect();
    expect(refs[0]!.deref()).toBeDefined();
    await otherChats();
    await collect();
    expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
  });

  it('a streamed chat completion and a tool run leave nothing either', async () => {
    const refs = await sessionsOpenedBy(async () => {
      t.model.script(reply().text('streamed'));
      const res = await t.req('POST', '/v1/chat/completions', {
        stream: true,
        messages: [{ role: 'user', content: 'stream it' }],
      });
      expect(await res.text()).toContain('[DONE]');
    });
    const run = await t.req('POST', '/v1/tools/current_time/run', { args: {} });
    expect(run.status).toBe(200);
    expect(refs).toHaveLength(1);
    await otherChats();
    await collect();
    expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
  });
});

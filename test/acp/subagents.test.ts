/**
 * Sub-agents through `tea acp` with the SDK's client: a child's tool calls are tool
 * calls of their own (ids unique per child, titles with its label), the parent's
 * `task` call shows each child's status line and then its answer, a child's write is
 * asked through session/request_permission in its name, and its text never becomes
 * the agent's message.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isChild, isFirstCall, task } from '../multi/helpers.js';
import { reply } from '../support/script.js';
import { wireMessages } from '../support/wire.js';
import { chunkText, initialize, newSession, prompt, updatesOf } from './peer.js';
import { useAcp } from './setup.js';

const setup = useAcp();
const { t } = setup;

beforeEach(() => {
  writeFileSync(path.join(setup.work, 'notes.md'), 'the notes\n');
});

const textOf = (content: unknown): string =>
  ((content as Array<{ type: string; content?: { type: string; text?: string } }> | null | undefined) ?? [])
    .map((c) => c.content?.text ?? '')
    .join('\n');

describe('tea acp with sub-agents', () => {
  it('reports a child’s calls as its own, asks in its name, and shows its status and answer on the task call', async () => {
    t.server.respond((body) => {
      if (isChild(body)) {
        const results = wireMessages(body).filter((m) => m.role === 'tool').length;
        if (results === 0) return reply().toolCall('read_file', { path: 'notes.md' }).usage(100, 10);
        if (results === 1)
          return reply()
            .toolCall('write_file', { path: 'out.txt', content: 'from the child\n' })
            .usage(100, 10);
        return reply().text('CHILD: wrote out.txt').usage(100, 10);
      }
      if (isFirstCall(body))
        return reply()
          .text('Delegating. ')
          .toolCall('task', task(1, { role: 'coder' }))
          .usage(10, 1);
      return reply().text('The coder wrote it.').usage(10, 1);
    });
    const p = setup.start();
    await initialize(p);
    const { sessionId } = await newSession(p, setup.work);
    expect((await prompt(p, sessionId, 'delegate a write')).stopReason).toBe('end_turn');
    expect(readFileSync(path.join(setup.work, 'out.txt'), 'utf8')).toBe('from the child\n');

    // The agent's message is the parent's text only.
    expect(chunkText(p, 'agent_message_chunk')).toBe('Delegating. The coder wrote it.');

    const calls = updatesOf(p, 'tool_call');
    const taskCall = calls.find((c) => c.title === 'task')!;
    const childCalls = calls.filter((c) => c.title.startsWith('coder #1: '));
    expect(childCalls.map((c) => c.title)).toEqual([
      'coder #1: read_file: notes.md',
      'coder #1: write_file: out.txt',
    ]);
    const [childSession] = childCalls[0]!.toolCallId.split(':');
    expect(childSession).toMatch(/^[0-9a-f-]{36}$/);
    for (const c of childCalls)
      expect(c.toolCallId).toMatch(new RegExp(`^${childSession}:call_scripted_\\d+$`));

    // The write was asked for in the child's name, under the id its call was shown with.
    expect(p.permissions).toHaveLength(1);
    expect(p.permissions[0]!.toolCall).toMatchObject({
      toolCallId: childCalls[1]!.toolCallId,
      title: 'coder #1: write_file: out.txt',
    });
    const childDone = updatesOf(p, 'tool_call_update').filter(
      (u) => u.toolCallId === childCalls[1]!.toolCallId && u.status === 'completed',
    );
    expect(childDone).toHaveLength(1);

    // The task call: status lines as the child went, then its answer, then the result.
    const onTask = updatesOf(p, 'tool_call_update').filter((u) => u.toolCallId === taskCall.toolCallId);
    const contents = onTask.filter((u) => u.content).map((u) => textOf(u.content));
    expect(contents).toContain('⏵ coder #1 · running · 0 tokens');
    expect(contents).toContain('⏵ coder #1 · running · 110 tokens · read_file');
    expect(contents).toContain('⏸ coder #1 · waiting for approval · 220 tokens');
    expect(contents).toContain('✓ coder #1 · done · 330 tokens\nCHILD: wrote out.txt');
    const last = onTask.at(-1)!;
    expect(last.status).toBe('completed');
    expect(textOf(last.content)).toMatch(
      /^\[sub-agent coder #1 · completed · 330 tokens · session [0-9a-f]{8}\]\nCHILD: wrote out.txt$/,
    );

    // The cost and the sub-agents' share, on the last usage update.
    const usage = updatesOf(p, 'usage_update').at(-1)!;
    expect(usage._meta).toEqual({
      tea: { subagents: { count: 1, inputTokens: 300, outputTokens: 30, costUsd: 0 } },
    });
  });
});

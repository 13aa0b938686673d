/**
 * User commands over ACP, through the SDK's real client and the built `tea acp`: they are
 * listed in `available_commands_update` beside the built-in ones, and a prompt naming one
 * reaches the model as the expanded template (the scripted server records it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { chunkText, initialize, newSession, prompt, updatesOf, waitFor } from './peer.js';
import { useAcp } from './setup.js';

const setup = useAcp();
const { t } = setup;

beforeEach(() => {
  const project = path.join(setup.work, '.tea', 'commands');
  mkdirSync(path.join(project, 'git'), { recursive: true });
  mkdirSync(path.join(t.ctx.home, 'commands'), { recursive: true });
  writeFileSync(
    path.join(project, 'review.md'),
    '---\ndescription: Review a PR\nargument-hint: <pr>\n---\nReview PR $1 ($ARGUMENTS).',
  );
  writeFileSync(path.join(project, 'git', 'commit.md'), 'Write a commit message for: $ARGUMENTS');
  writeFileSync(path.join(project, 'tools.md'), 'shadowed by the built-in /tools');
  writeFileSync(path.join(t.ctx.home, 'commands', '翻译.md'), '翻译成英文：$ARGUMENTS');
});

describe('tea acp user commands', () => {
  it('lists them with the built-in ones and sends the expanded template to the model', async () => {
    const p = setup.start();
    await initialize(p);
    const s = await newSession(p, setup.work);
    await waitFor(() => updatesOf(p, 'available_commands_update').length > 0, 'the slash commands');
    const listed = updatesOf(p, 'available_commands_update')[0]!.availableCommands;
    expect(listed.map((c) => c.name)).toEqual([
      'help',
      'mode',
      'tools',
      'undo',
      'redo',
      'memory',
      'git:commit',
      'review',
      '翻译',
    ]);
    expect(listed.find((c) => c.name === 'review')).toMatchObject({
      description: 'Review a PR',
      input: { hint: '<pr>' },
    });
    expect(p.stderr()).toMatch(/tools\.md is hidden by the built-in \/tools; rename the file/);

    t.server.script(reply().text('Reviewed.'), reply().text('Translated.'));
    expect((await prompt(p, s.sessionId, '/review 42 carefully')).stopReason).toBe('end_turn');
    expect(wireText(wireMessages(t.server.requests[0]!.body).at(-1)!)).toBe('Review PR 42 (42 carefully).');
    await prompt(p, s.sessionId, '/翻译 你好 $ARGUMENTS');
    expect(wireText(wireMessages(t.server.requests[1]!.body).at(-1)!)).toBe('翻译成英文：你好 $ARGUMENTS');
    expect(chunkText(p, 'agent_message_chunk')).toContain('Translated.');
    // The built-in /tools still answers without the model.
    await prompt(p, s.sessionId, '/tools files');
    expect(t.server.requests).toHaveLength(2);
    // A second session: the same commands, and the shadowed file is not reported again.
    await newSession(p, setup.work);
    await waitFor(
      () => updatesOf(p, 'available_commands_update').length > 1,
      'the second session’s commands',
    );
    expect(updatesOf(p, 'available_commands_update')[1]!.availableCommands).toHaveLength(9);
    expect(p.stderr().match(/tools\.md is hidden/g)).toHaveLength(1);
  });
});

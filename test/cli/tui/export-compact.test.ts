/**
 * /export (Markdown in a file, never overwriting) and /compact (the turns so far folded
 * into the summary, so the next request carries it instead of them), on a real runtime.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/agent/index.js';
import { defaultExportName, exportPath } from '../../../src/cli/tui/commands/export.js';
import { builtinCommands } from '../../../src/cli/tui/commands/index.js';
import { reply } from '../../support/script.js';
import { useModelServer } from '../../support/use-model-server.js';
import { wireMessages, wireText } from '../../support/wire.js';
import { run, useWorkspace } from './test-host.js';

const model = useModelServer();
const workspace = useWorkspace(model);
const commands = builtinCommands();

async function turn(session: Session, text: string): Promise<void> {
  for await (const _ of session.prompt(text));
}

/** Every message text of the last request the model server got. */
function lastRequestText(): string {
  return wireMessages(model().requests.at(-1)!.body).map(wireText).join('\n');
}

describe('/export', () => {
  it('writes the session as Markdown under a default name in the workspace, and never overwrites', async () => {
    const { host, work } = await workspace();
    model().script(reply().text('The answer is **42**.'));
    await turn(host.session(), 'What is the answer?');
    await run(commands, host, '/export');
    const file = path.join(work, defaultExportName('What is the answer?', host.session().id));
    expect(host.last).toMatchObject({ tone: 'success', text: expect.stringContaining(file) });
    const md = readFileSync(file, 'utf8');
    expect(md).toMatch(/^# What is the answer\?\n/);
    expect(md).toContain('## User\n\nWhat is the answer?');
    expect(md).toContain('## Assistant\n\nThe answer is **42**.');
    writeFileSync(file, 'mine');
    await run(commands, host, '/export');
    expect(host.last).toMatchObject({ tone: 'error', text: expect.stringContaining('already exists') });
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });

  it('break-in table: existing links, folders, missing folders and NUL bytes are refused, nothing written', async () => {
    const { host, work } = await workspace();
    const outside = path.join(work, '..', 'outside.txt');
    writeFileSync(outside, 'keep');
    symlinkSync(outside, path.join(work, 'link.md'));
    symlinkSync(path.join(work, 'nowhere.md'), path.join(work, 'dangling.md'));
    mkdirSync(path.join(work, 'folder'));
    const cases: Array<[string, RegExp]> = [
      ['link.md', /already exists/],
      ['dangling.md', /already exists/],
      ['folder', /already exists|is a folder/],
      ['no/such/dir/x.md', /folder .* does not exist/],
      ['bad\u0000name.md', /./],
    ];
    for (const [arg, why] of cases) {
      await run(commands, host, `/export ${arg}`);
      expect(host.last.tone, arg).toBe('error');
      expect(host.last.text, arg).toMatch(why);
    }
    expect(readFileSync(outside, 'utf8')).toBe('keep');
    expect(existsSync(path.join(work, 'nowhere.md'))).toBe(false);
    await run(commands, host, '/export notes/../session.md');
    expect(existsSync(path.join(work, 'session.md'))).toBe(true);
  });

  it('names: title words of any script, the id; paths: relative to the workspace, ~ is home', () => {
    expect(defaultExportName('修复 解析器: bug #12', 'abcdef0123')).toBe(
      'tea-修复-解析器-bug-12-abcdef01.md',
    );
    expect(defaultExportName(null, 'abcdef0123')).toBe('tea-abcdef01.md');
    expect(defaultExportName('../../etc/passwd', 'abcdef0123')).toBe('tea-etc-passwd-abcdef01.md');
    expect(exportPath('', '/w', 'x.md')).toBe('/w/x.md');
    expect(exportPath('out/a.md', '/w', 'x.md')).toBe('/w/out/a.md');
    expect(exportPath('/tmp/a.md', '/w', 'x.md')).toBe('/tmp/a.md');
    expect(exportPath('~/a.md', '/w', 'x.md')).toMatch(/^\/.+\/a\.md$/);
  });
});

describe('/compact', () => {
  it('folds the turns into the summary: the next request carries it instead of the raw turns', async () => {
    const { rt, host } = await workspace();
    model().script(reply().text('ANSWER-ONE').usage(10, 2), reply().text('ANSWER-TWO').usage(20, 2));
    await turn(host.session(), 'QUESTION-ONE about the parser');
    await turn(host.session(), 'QUESTION-TWO about the lexer');
    const before = model().requests.length;
    model().script(reply().text('SUMMARY: the user asked about the parser and the lexer.').usage(40, 12));
    await run(commands, host, '/compact');
    expect(model().requests.length).toBe(before + 1);
    expect(host.last).toMatchObject({
      tone: 'success',
      text: expect.stringMatching(/^Compacted 2 turns into the summary/),
    });
    expect(host.refreshed).toBe(1);
    model().script(reply().text('ANSWER-THREE').usage(30, 2));
    await turn(host.session(), 'QUESTION-THREE');
    const sent = lastRequestText();
    expect(sent).toContain('SUMMARY: the user asked about the parser and the lexer.');
    expect(sent).toContain('QUESTION-THREE');
    expect(sent).not.toContain('QUESTION-ONE');
    expect(sent).not.toContain('ANSWER-TWO');
    // The transcript is kept whole, and the summary's tokens count in the session's usage.
    expect(rt.sessions.messageCount(host.session().id)).toBe(6);
    expect(rt.sessions.usage(host.session().id).calls).toBe(4);
  });

  it('a reopened session keeps the compaction (a later process builds from the summary too)', async () => {
    const { rt, host } = await workspace();
    model().script(reply().text('ANSWER-ONE'), reply().text('SUMMARY-XYZ'), reply().text('ANSWER-TWO'));
    await turn(host.session(), 'QUESTION-ONE');
    await run(commands, host, '/compact');
    await turn(rt.sessions.open(host.session().id), 'QUESTION-TWO');
    expect(lastRequestText()).toContain('SUMMARY-XYZ');
    expect(lastRequestText()).not.toContain('QUESTION-ONE');
  });

  it('with nothing to compact, or when the summary fails, says so and changes nothing', async () => {
    const { host } = await workspace();
    await run(commands, host, '/compact');
    expect(host.last).toMatchObject({ tone: 'dim', text: expect.stringContaining('Nothing to compact') });
    expect(model().requests).toHaveLength(0);
    model().script(
      reply().text('ANSWER-ONE'),
      reply().error(400, { message: 'summary model refused' }),
      reply().text('ANSWER-TWO'),
    );
    await turn(host.session(), 'QUESTION-ONE');
    await run(commands, host, '/compact');
    expect(host.last).toMatchObject({ tone: 'error', text: expect.stringContaining('Not compacted') });
    await turn(host.session(), 'QUESTION-TWO');
    expect(lastRequestText()).toContain('QUESTION-ONE');
  });

  it('is refused while a turn runs', async () => {
    const { host } = await workspace();
    model().script(reply().text('slow').holdUntil('hold'));
    const running = turn(host.session(), 'QUESTION');
    await model().waitForRequests(1);
    await expect(host.session().compact()).rejects.toThrow(/busy/);
    model().release('hold');
    await running;
    expect(model().requests).toHaveLength(1);
  });
});

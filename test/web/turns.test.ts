/**
 * A turn as the web UI shows it, against the real `tea serve` (ask mode) and the
 * scripted model: the "working" indicator (also after a reload mid-turn), a failed
 * turn's error shown once with Retry, and approval cards that show what will happen.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { backgroundOf, lastAnswer, openApp, poll, screenshot, sendPrompt, textLines } from './browser.js';

const web = useWebApp(['--permission-mode', 'ask'], { resetModel: true });

/** How often `text` appears in the transcript. */
async function occurrences(page: Page, text: string): Promise<number> {
  const all = (await page.getByTestId('messages').textContent()) ?? '';
  return all.split(text).length - 1;
}

async function reloadApp(page: Page): Promise<void> {
  await page.reload();
  await page.getByTestId('prompt-input').waitFor();
}

describe('web UI: turns', () => {
  it('shows that Tea is working from the moment of sending until the turn ends, also after a reload', async () => {
    web.srv.model.script(reply().text('Half an answer, then silence.').chunkSize(5).hangAfter(2));
    const { page, errors } = await openApp(web.browser, web.srv.url);
    const working = page.getByTestId('working');
    expect(await working.isVisible()).toBe(false);
    await sendPrompt(page, 'Take your time');
    await working.waitFor();
    expect(await working.textContent()).toContain('Working');
    expect(await working.getAttribute('role')).toBe('status');
    await poll(() => lastAnswer(page)).toContain('Half');
    expect(await working.isVisible()).toBe(true);
    await screenshot(page, 'working');

    // The page comes back on the same session, still running.
    await reloadApp(page);
    await poll(() => page.getByTestId('session-title').textContent()).toBe('Take your time');
    await working.waitFor();
    await screenshot(page, 'working-after-reload');
    await page.getByTestId('stop').click();
    await working.waitFor({ state: 'hidden' });
    await poll(() => page.getByTestId('send').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows a failed turn’s error once, with Retry that sends the turn again (also after a reload)', async () => {
    web.srv.model.script(
      reply().error(500, { message: 'the upstream model fell over' }),
      reply().error(503, { message: 'the upstream model is still down' }),
      reply().text('Second time lucky.'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Tell me a story');
    const failure = page.getByTestId('turn-error');
    await failure.waitFor();
    await poll(() => page.locator('body').getAttribute('data-running')).toBe('false');
    expect(await occurrences(page, 'the upstream model fell over')).toBe(1);
    expect(await page.getByTestId('toast').count()).toBe(0);
    expect(await page.getByTestId('working').isVisible()).toBe(false);
    await screenshot(page, 'turn-error');

    await failure.getByRole('button', { name: 'Retry' }).click();
    await poll(() => occurrences(page, 'the upstream model is still down')).toBe(1);
    expect(web.srv.model.requests).toHaveLength(2);
    expect(JSON.stringify(web.srv.model.requests[1]?.body.messages)).toContain('Tell me a story');
    // Only the newest failure offers Retry.
    await poll(() => page.getByRole('button', { name: 'Retry' }).count()).toBe(1);
    expect(await occurrences(page, 'the upstream model fell over')).toBe(1);

    // After a reload the unanswered message still offers Retry.
    await reloadApp(page);
    await poll(() => page.getByTestId('session-title').textContent()).toBe('Tell me a story');
    const unanswered = page.getByTestId('turn-error');
    await unanswered.waitFor();
    expect(await unanswered.textContent()).toContain('no answer');
    await unanswered.getByRole('button', { name: 'Retry' }).click();
    await poll(() => lastAnswer(page)).toBe('Second time lucky.');
    expect(web.srv.model.requests).toHaveLength(3);
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    await poll(() => page.getByTestId('working').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows what overwriting a file replaces (a diff against the file), and "New file" only for a new one', async () => {
    const notes = path.join(web.srv.ctx.work, 'overwrite-me.txt');
    writeFileSync(notes, 'hello web\nkeep this line\n');
    web.srv.model.script(
      reply().toolCall('write_file', { path: 'overwrite-me.txt', content: 'changed line\nkeep this line\n' }),
      reply().toolCall('write_file', { path: 'brand-new.txt', content: 'first line\n' }),
      reply().text('Both written.'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Change the first line and start a new file');

    const overwrite = page.getByTestId('approval').nth(0);
    const diff = overwrite.getByTestId('approval-diff');
    await diff.waitFor();
    expect(await overwrite.locator('.approval-preview .tool-section-label').textContent()).toBe(
      'Changes to overwrite-me.txt',
    );
    expect(await diff.locator('.diff-del').allTextContents()).toEqual(['-hello web']);
    expect(await diff.locator('.diff-add').allTextContents()).toEqual(['+changed line']);
    expect(await diff.locator('.diff-ctx').allTextContents()).toEqual([' keep this line']);
    await screenshot(page, 'approval-overwrite-diff');
    await overwrite.getByTestId('approve-once').click();
    await poll(() => readFileSync(notes, 'utf8')).toBe('changed line\nkeep this line\n');

    const created = page.getByTestId('approval').nth(1);
    await created.getByTestId('approval-diff').waitFor();
    expect(await created.locator('.approval-preview .tool-section-label').textContent()).toBe(
      'New file brand-new.txt',
    );
    expect(await created.locator('.diff-line').allTextContents()).toEqual(['+first line']);
    await created.getByTestId('approve-once').click();
    await poll(() => lastAnswer(page)).toBe('Both written.');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows the diff of an edit, a new file and a command in full before the user answers', async () => {
    const poem = path.join(web.srv.ctx.work, 'poem.txt');
    writeFileSync(poem, 'roses are red\nviolets are blue\nsugar is sweet\n');
    const command =
      'npm test -- --reporter=verbose --coverage && echo "all tests passed at $(date +%s)" | tee -a logs/test-history.txt';
    web.srv.model.script(
      reply().toolCall('edit_file', {
        path: 'poem.txt',
        edits: [
          { old_string: 'roses are red', new_string: 'roses are RED' },
          { old_string: 'violets are blue\n', new_string: 'violets are violet\nand so are you\n' },
        ],
      }),
      reply().toolCall('write_file', { path: 'notes/todo.md', content: '# Todo\n- water the roses\n' }),
      reply().toolCall('bash', { command }),
      reply().text('Done.'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Improve the poem, note a todo and run the tests');

    const edit = page.getByTestId('approval').nth(0);
    const diff = edit.getByTestId('approval-diff');
    await diff.waitFor();
    expect(await diff.locator('.diff-del').allTextContents()).toEqual([
      '-roses are red',
      '-violets are blue',
    ]);
    expect(await diff.locator('.diff-add').allTextContents()).toEqual([
      '+roses are RED',
      '+violets are violet',
      '+and so are you',
    ]);
    const added = await backgroundOf(diff.locator('.diff-add'));
    expect(added).not.toBe(await backgroundOf(diff.locator('.diff-del')));
    expect(added).not.toBe(await backgroundOf(edit));
    expect(readFileSync(poem, 'utf8')).toBe('roses are red\nviolets are blue\nsugar is sweet\n');
    await screenshot(page, 'approval-edit-diff');
    await edit.getByTestId('approve-once').click();
    await poll(() => readFileSync(poem, 'utf8')).toContain('and so are you');

    const write = page.getByTestId('approval').nth(1);
    const content = write.getByTestId('approval-diff');
    await content.waitFor();
    expect(await content.locator('.diff-add').allTextContents()).toEqual(['+# Todo', '+- water the roses']);
    expect(await content.locator('.diff-del').count()).toBe(0);
    await write.getByTestId('approve-once').click();

    const run = page.getByTestId('approval').nth(2);
    const shown = run.getByTestId('approval-command');
    await shown.waitFor();
    expect(await shown.textContent()).toBe(command);
    // All of it on screen: wrapped, not cut off or scrolled away.
    const fits = await shown.evaluate((n) => {
      const box = n as unknown as { scrollWidth: number; clientWidth: number };
      return box.scrollWidth <= box.clientWidth;
    });
    expect(fits).toBe(true);
    // The card's header keeps the tool's name on one line beside the long command.
    expect(
      await textLines(page.locator('[data-testid=tool-card][data-tool=bash] [data-testid=tool-name]')),
    ).toBe(1);
    await screenshot(page, 'approval-command');
    await run.getByTestId('approve-reject').click();
    await poll(() => lastAnswer(page)).toBe('Done.');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

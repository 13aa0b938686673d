/**
 * Undo / Redo in the web session view against the real `tea serve` (built dist/) and
 * headless Chromium: a turn's bash edits a file and creates another; the top bar says
 * "2 files changed"; Undo restores both, Redo puts them back, and a refusal (the user
 * changed a file since) shows the server's message naming the file; after a reload the
 * notes undo and redo left for the model show as lines, not as user messages.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { lastAnswer, openApp, poll, screenshot, sendPrompt } from './browser.js';

const web = useWebApp(['--permission-mode', 'yolo'], { resetModel: true });

describe('web UI: Undo / Redo', () => {
  it('reverts and re-applies the files a turn changed, and shows a refusal', async () => {
    const work = web.srv.ctx.work;
    writeFileSync(path.join(work, 'a.txt'), 'one\n');
    web.srv.model.script(
      reply().toolCall('bash', { command: 'echo two > a.txt && echo new > b.txt' }),
      reply().text('Edited.'),
    );
    // Wide enough for the top bar to keep its Undo / Redo (a narrower one leaves them to Settings).
    const { page, errors } = await openApp(web.browser, web.srv.url, { width: 1440, height: 900 });
    await sendPrompt(page, 'edit the files');
    await poll(() => lastAnswer(page)).toBe('Edited.');
    await poll(() => page.getByTestId('journal-status').textContent()).toBe('2 files changed');
    await screenshot(page, 'journal-changed');

    await page.getByTestId('undo').click();
    await poll(() => existsSync(path.join(work, 'b.txt'))).toBe(false);
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('one\n');
    await poll(() => page.getByTestId('toast').last().textContent()).toContain('a.txt restored');

    await page.getByTestId('redo').click();
    await poll(() => existsSync(path.join(work, 'b.txt'))).toBe(true);
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('two\n');

    writeFileSync(path.join(work, 'b.txt'), 'mine\n');
    await page.getByTestId('undo').click();
    await poll(() => page.getByTestId('toast').last().textContent()).toContain('changed since: b.txt');
    expect(readFileSync(path.join(work, 'b.txt'), 'utf8')).toBe('mine\n');
    // After a reload, what undo and redo told the model shows as lines, not as user messages.
    await page.reload();
    await page.getByTestId('prompt-input').waitFor();
    await poll(() => page.getByTestId('line-journal').count()).toBe(2);
    expect(await page.getByTestId('user-message').allTextContents()).toEqual(['edit the files']);
    expect(await page.getByTestId('line-journal').first().textContent()).toMatch(
      /^The user undid the file changes of an earlier turn \(\/undo\).*a\.txt \(restored\)/,
    );
    await screenshot(page, 'journal-reloaded');
    // The refused undo's 409 is the only failed request the page saw.
    expect(errors).toEqual([
      'console: Failed to load resource: the server responded with a status of 409 (Conflict)',
    ]);
    await page.context().close();
  });
});

/**
 * The web UI against the real `tea serve` (ask mode): Retry after a failed turn runs
 * the stored message again without storing it twice, and an approval that waits when
 * the page is reloaded shows again and can be answered.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { lastAnswer, openApp, poll, screenshot, sendPrompt } from './browser.js';

const web = useWebApp(['--permission-mode', 'ask'], { resetModel: true });

/** The open session's id (the address names it: `#session=<id>`). */
async function openSessionId(page: Page): Promise<string> {
  await poll(() => /#session=/.test(page.url())).toBe(true);
  return new URL(page.url()).hash.replace('#session=', '');
}

/** The texts of the session's stored user messages, through the session API. */
async function storedUserMessages(id: string): Promise<string[]> {
  const res = await fetch(`${web.srv.url}/v1/sessions/${id}/messages`);
  const body = (await res.json()) as { data: Array<{ role: string; parts: Array<{ text?: string }> }> };
  return body.data.filter((m) => m.role === 'user').map((m) => m.parts.map((p) => p.text ?? '').join(''));
}

async function reloadApp(page: Page): Promise<void> {
  await page.reload();
  await page.getByTestId('prompt-input').waitFor();
}

describe('web UI: retry and reload', () => {
  it('Retry runs the failed message again without storing it twice (also after a reload)', async () => {
    web.srv.model.script(
      reply().error(500, { message: 'the upstream model fell over' }),
      reply().error(503, { message: 'the upstream model is still down' }),
      reply().text('Second time lucky.'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Tell me a story');
    await page.getByTestId('turn-error').waitFor();
    const id = await openSessionId(page);
    expect(await storedUserMessages(id)).toEqual(['Tell me a story']);

    await page.getByRole('button', { name: 'Retry' }).click();
    await poll(() => web.srv.model.requests.length).toBe(2);
    await poll(() => page.getByRole('button', { name: 'Retry' }).count()).toBe(1);
    expect(await storedUserMessages(id)).toEqual(['Tell me a story']);
    // One bubble on screen, and the model got the message once.
    expect(await page.getByTestId('user-message').count()).toBe(1);
    const sent = (web.srv.model.requests[1]?.body.messages ?? []) as Array<{ role: string }>;
    expect(sent.filter((m) => m.role === 'user')).toHaveLength(1);

    await reloadApp(page);
    await page.getByTestId('turn-error').waitFor();
    expect(await page.getByTestId('turn-error').textContent()).toContain('got no answer');
    await page.getByRole('button', { name: 'Retry' }).click();
    await poll(() => lastAnswer(page)).toBe('Second time lucky.');
    // The message has its answer: the line saying it got none is gone.
    expect(await page.getByTestId('turn-error').count()).toBe(0);
    expect(await page.getByTestId('messages').textContent()).not.toContain('got no answer');
    expect(await storedUserMessages(id)).toEqual(['Tell me a story']);
    expect(await page.getByTestId('user-message').count()).toBe(1);
    await poll(() => page.getByTestId('working').isVisible()).toBe(false);

    // Reloaded once more: the stored transcript is the message and its answer.
    await reloadApp(page);
    await poll(() => lastAnswer(page)).toBe('Second time lucky.');
    expect(await page.getByTestId('user-message').allTextContents()).toEqual(['Tell me a story']);
    expect(await page.getByTestId('turn-error').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows an approval that waits when the page is reloaded, and the answer runs the tool', async () => {
    web.srv.model.script(
      reply().toolCall('write_file', { path: 'reloaded.md', content: '# Still here\n' }),
      reply().text('Saved **reloaded.md**.'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Write a note that survives a reload');
    await page.getByTestId('approval').waitFor();

    await reloadApp(page);
    await poll(() => page.getByTestId('session-title').textContent()).toBe(
      'Write a note that survives a reload',
    );
    const approval = page.getByTestId('approval');
    await approval.waitFor();
    expect(await approval.count()).toBe(1);
    expect(await approval.textContent()).toContain('write_file');
    expect(await page.getByTestId('working').textContent()).toContain('Waiting for your approval');
    const card = page.locator('[data-testid=tool-card][data-tool=write_file]');
    expect(await card.getAttribute('data-status')).toBe('awaiting_approval');
    await screenshot(page, 'approval-after-reload');

    const target = path.join(web.srv.ctx.work, 'reloaded.md');
    expect(existsSync(target)).toBe(false);
    await approval.getByTestId('approve-once').click();
    await poll(() => lastAnswer(page)).toContain('Saved');
    expect(readFileSync(target, 'utf8')).toBe('# Still here\n');
    await poll(() => page.getByTestId('send').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

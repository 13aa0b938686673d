/**
 * Sessions in the web UI against the real `tea serve`: switching loads each
 * history (rendered like the live turn), rename, delete, export, Chinese text.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { lastAnswer, openApp, poll, screenshot, sendPrompt } from './browser.js';

const web = useWebApp(['--permission-mode', 'ask']);

const CHINESE =
  '你好！这是一段很长的中文回答，用来检查换行是否正常：人工智能助手应该能够在浏览器里流畅地显示中文、English 混排以及标点符号。';

async function api<T>(method: string, path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${web.srv.url}${path}`, { method });
  return { status: res.status, body: (await res.json()) as T };
}

function sessionItem(page: Page, title: string) {
  return page.getByTestId('session-item').filter({ hasText: title });
}

async function waitIdle(page: Page): Promise<void> {
  await poll(() => page.locator('body').getAttribute('data-running')).toBe('false');
}

describe('web UI: sessions', () => {
  it('switches between two sessions, each loading its own history the way it was shown live', async () => {
    writeFileSync(`${web.srv.ctx.work}/apples.txt`, 'red\n');
    web.srv.model.script(
      reply().toolCall('read_file', { path: 'apples.txt' }),
      reply().text('Apples are **red**.'),
      reply().thinking('The user writes Chinese.').text(CHINESE),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'First topic: apples');
    await poll(() => lastAnswer(page)).toBe('Apples are red.');
    await waitIdle(page);

    await page.getByTestId('new-session').click();
    expect(await page.getByTestId('messages').locator('> *').count()).toBe(0);
    await sendPrompt(page, '第二个话题：中文');
    await poll(() => lastAnswer(page)).toBe(CHINESE);
    await waitIdle(page);

    // Chinese renders as sent and wraps inside the column (no sideways scrolling).
    const overflow = await page.evaluate(`(() => {
      const s = document.querySelector('.scroller');
      return s.scrollWidth - s.clientWidth;
    })()`);
    expect(overflow).toBe(0);
    expect(await page.getByTestId('thinking').textContent()).toContain('The user writes Chinese.');
    await screenshot(page, 'chinese');

    await poll(() => page.getByTestId('session-item').count()).toBe(2);
    await sessionItem(page, 'First topic').click();
    await poll(() => page.getByTestId('session-title').textContent()).toBe('First topic: apples');
    await poll(() => lastAnswer(page)).toBe('Apples are red.');
    expect(await page.getByTestId('messages').textContent()).not.toContain('中文');
    const card = page.locator('[data-testid=tool-card][data-tool=read_file]');
    expect(await card.getAttribute('data-status')).toBe('completed');
    expect(await card.getByTestId('tool-result').textContent()).toContain('red');
    expect(await page.getByTestId('user-message').textContent()).toBe('First topic: apples');
    await screenshot(page, 'session-history');

    await sessionItem(page, '第二个话题').click();
    await poll(() => lastAnswer(page)).toBe(CHINESE);
    expect(await page.getByTestId('messages').textContent()).not.toContain('Apples');
    expect(await page.getByTestId('thinking').textContent()).toContain('The user writes Chinese.');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a slow start does not take the focus from a rename the user began meanwhile', async () => {
    const context = await web.browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(8000);
    // The settings load is held until the rename is under way, then let through.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/v1/config', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(web.srv.url);
    const row = page.locator('[data-session-id]').first();
    await row.hover();
    await row.getByTestId('session-rename').click();
    const input = page.getByTestId('session-rename-input');
    await input.waitFor();
    release();
    await page.waitForResponse('**/v1/config');
    await poll(() => page.evaluate('document.activeElement?.dataset.testid')).toBe('session-rename-input');
    await input.press('Escape');
    await context.close();
  });

  it('renames and deletes sessions from the sidebar', async () => {
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await poll(() => page.getByTestId('session-item').count()).toBe(2);
    const row = page.locator('[data-session-id]').filter({ hasText: 'First topic' });
    const id = await row.getAttribute('data-session-id');
    await row.hover();
    await row.getByTestId('session-rename').click();
    const input = page.getByTestId('session-rename-input');
    await input.fill('Fruit notes');
    await input.press('Enter');
    await sessionItem(page, 'Fruit notes').waitFor();
    expect((await api<{ title: string }>('GET', `/v1/sessions/${id}`)).body.title).toBe('Fruit notes');

    const renamed = page.locator(`[data-session-id="${id}"]`);
    await renamed.hover();
    await renamed.getByTestId('session-delete').click();
    // The first click only asks; the second deletes.
    expect((await api('GET', `/v1/sessions/${id}`)).status).toBe(200);
    await renamed.getByTestId('session-delete').click();
    await poll(() => page.getByTestId('session-item').count()).toBe(1);
    expect((await api('GET', `/v1/sessions/${id}`)).status).toBe(404);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('exports the open session as Markdown and as PDF', async () => {
    const { page } = await openApp(web.browser, web.srv.url);
    await sessionItem(page, '第二个话题').click();
    await poll(() => lastAnswer(page)).toBe(CHINESE);

    const [markdown] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-markdown').click(),
    ]);
    expect(markdown.suggestedFilename()).toMatch(/\.md$/);
    const text = readFileSync(await markdown.path(), 'utf8');
    expect(text).toContain('第二个话题：中文');
    expect(text).toContain('你好！');

    const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-pdf').click()]);
    expect(pdf.suggestedFilename()).toMatch(/\.pdf$/);
    expect(
      readFileSync(await pdf.path())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');
    await page.context().close();
  });
});

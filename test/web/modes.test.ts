/**
 * The work-mode selector against the real `tea serve` in headless Chromium: a new chat
 * starts in develop and takes the mode chosen before its first message; an open
 * session shows its stored mode and switches with the selector (the server agrees).
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { useWebApp } from './app.js';
import { lastAnswer, openApp, poll, screenshot, sendPrompt } from './browser.js';

const web = useWebApp(['--permission-mode', 'ask'], { resetModel: true });

async function sessionMode(id: string): Promise<string | null> {
  const res = await fetch(`${web.srv.url}/v1/sessions/${id}`);
  return ((await res.json()) as { work_mode: string | null }).work_mode;
}

describe('web UI: work modes', () => {
  it('a new chat takes the mode chosen before its first message', async () => {
    web.srv.model.script(reply().text('Reviewed: nothing to report.'));
    const { page, errors } = await openApp(web.browser, web.srv.url);
    const select = page.getByTestId('work-mode');
    await poll(() => select.inputValue()).toBe('develop');
    const options = await select.locator('option').allTextContents();
    expect(options).toEqual(['design', 'develop', 'test', 'review', 'docs', 'devops']);
    await select.selectOption('review');
    await sendPrompt(page, 'review the repo');
    await poll(() => lastAnswer(page)).toBe('Reviewed: nothing to report.');
    const system = wireText(wireMessages(web.srv.model.requests[0]!.body)[0]!);
    expect(system).toContain('\nWork mode: review — ');
    const id = new URL(page.url()).hash.replace('#session=', '');
    expect(await sessionMode(id)).toBe('review');
    await screenshot(page, 'work-mode-review');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('an open session shows its mode and switches with the selector', async () => {
    const res = await fetch(`${web.srv.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Docs pass' }),
    });
    const { id } = (await res.json()) as { id: string };
    await fetch(`${web.srv.url}/v1/sessions/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ work_mode: 'docs' }),
    });
    const { page, errors } = await openApp(web.browser, `${web.srv.url}/#session=${id}`);
    await poll(() => page.getByTestId('session-title').textContent()).toBe('Docs pass');
    const select = page.getByTestId('work-mode');
    await poll(() => select.inputValue()).toBe('docs');
    await select.selectOption('devops');
    await poll(() => sessionMode(id)).toBe('devops');
    await poll(() => page.getByTestId('toast').last().textContent()).toBe('Work mode: devops');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

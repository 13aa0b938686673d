/**
 * The top bar against the real `tea serve`, with automatic titles on (the scripted
 * model names each new session after its first turn) and a 4-letter model id: the
 * header shows the new title as soon as it is stored (no reload), and on a 375 px
 * phone the model badge shows a short model id whole beside a long title.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { lastAnswer, openApp, poll, screenshot, sendPrompt } from './browser.js';

const web = useWebApp(['--permission-mode', 'ask'], {
  models: { main: 'fake' },
  autoTitle: true,
  resetModel: true,
});

describe('web UI: the top bar', () => {
  it('shows the automatic title in the header and the list as soon as it is stored', async () => {
    web.srv.model.script(reply().text('Beds one to four.'), reply().text('Garden bed plan'));
    const { page, errors } = await openApp(web.browser, web.srv.url);
    const first = 'write hello web a1280 to web-a1280.txt and then plan the garden beds';
    await sendPrompt(page, first);
    await poll(() => lastAnswer(page)).toBe('Beds one to four.');
    // The title the page gave the new session, until the model's arrives.
    await web.srv.model.waitForRequests(2);
    await poll(() => page.getByTestId('session-title').textContent()).toBe('Garden bed plan');
    const active = page.locator('[data-testid=session-item][aria-current=true]');
    await poll(() => active.textContent()).toContain('Garden bed plan');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows a short model id whole at 375 px beside a long title', async () => {
    const title = 'Please plan the vegetable garden for the whole summer, bed by bed';
    const res = await fetch(`${web.srv.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title }),
    });
    const { id } = (await res.json()) as { id: string };
    const { page, errors } = await openApp(web.browser, `${web.srv.url}/#session=${id}`, {
      width: 375,
      height: 740,
    });
    await poll(() => page.getByTestId('session-title').textContent()).toBe(title);
    const badge = page.getByTestId('active-profile');
    await poll(() => badge.textContent()).toBe('fake');
    const sizes = (await page.evaluate(`(() => {
      const badge = document.getElementById('active-profile');
      const title = document.getElementById('session-title');
      return {
        badgeCut: badge.scrollWidth > badge.clientWidth,
        title: Math.round(title.getBoundingClientRect().width),
      };
    })()`)) as { badgeCut: boolean; title: number };
    await screenshot(page, 'phone-short-model');
    expect(sizes.badgeCut, JSON.stringify(sizes)).toBe(false);
    // The title gives way instead, but keeps a readable part.
    expect(sizes.title, JSON.stringify(sizes)).toBeGreaterThanOrEqual(100);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

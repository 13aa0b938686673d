/**
 * The web UI's layout at common widths against the real `tea serve`: the session
 * list on a phone opens and closes, the top bar never wraps or spills (a side panel,
 * workflows included, open or not, a long model id, big token counts), and the model
 * badge names the model.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { lastAnswer, openApp, poll, screenshot, sendPrompt } from './browser.js';

const LONG_MODEL = 'claude-sonnet-4-5-20250929';
const PHONE = { width: 375, height: 740 };

const web = useWebApp(['--permission-mode', 'ask'], { models: { main: LONG_MODEL } });

async function createSession(title: string): Promise<string> {
  const res = await fetch(`${web.srv.url}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title }),
  });
  return ((await res.json()) as { id: string }).id;
}

/** The sidebar's left and right edges (closed on a phone: off screen to the left). */
function sidebarEdges(page: Page): Promise<{ left: number; right: number }> {
  return page.evaluate(`(() => {
    const r = document.getElementById('sidebar').getBoundingClientRect();
    return { left: Math.round(r.left), right: Math.round(r.right) };
  })()`);
}

async function expectSidebar(page: Page, open: boolean): Promise<void> {
  await poll(async () => {
    const { left, right } = await sidebarEdges(page);
    return open ? left >= 0 && right > 200 : right <= 0;
  }).toBe(true);
  expect(await page.getByTestId('sidebar-toggle').getAttribute('aria-expanded')).toBe(String(open));
}

/**
 * What is wrong with the layout now, in words: a top-bar control or the Send button
 * whose text takes two lines, a control that spills out of the top bar or the window,
 * a squeezed title or chat column.
 */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const problems = [];
    const bar = document.querySelector('.topbar').getBoundingClientRect();
    const name = (n) => n.id ? '#' + n.id : n.tagName.toLowerCase() + '.' + n.className;
    const lines = (n) => {
      const walker = document.createTreeWalker(n, NodeFilter.SHOW_TEXT);
      let most = 0;
      for (let t = walker.nextNode(); t; t = walker.nextNode()) {
        if (!t.textContent.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(t);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        most = Math.max(most, tops.size);
      }
      return most;
    };
    // The session list's head (off screen on a phone until opened) only must not wrap.
    for (const n of document.querySelectorAll('.sidebar-head > *')) {
      if (lines(n) > 1) problems.push(name(n) + ' "' + n.textContent.trim() + '" wraps onto ' + lines(n) + ' lines');
    }
    const controls = [...document.querySelectorAll('.topbar > *, .topbar fieldset > *, .composer-row > button')];
    for (const n of controls) {
      if (n.getClientRects().length === 0) continue;
      const r = n.getBoundingClientRect();
      if (r.width === 0) continue;
      const inBar = n.closest('.topbar');
      if (lines(n) > 1) problems.push(name(n) + ' "' + n.textContent.trim() + '" wraps onto ' + lines(n) + ' lines');
      if (r.right > innerWidth + 0.5 || r.left < -0.5) problems.push(name(n) + ' spills out of the window');
      if (inBar && (r.right > bar.right + 0.5 || r.left < bar.left - 0.5 || r.bottom > bar.bottom + 0.5 || r.top < bar.top - 0.5))
        problems.push(name(n) + ' spills out of the top bar');
    }
    const title = document.getElementById('session-title').getBoundingClientRect();
    if (title.width < 40) problems.push('the session title is squeezed to ' + Math.round(title.width) + ' px');
    const main = document.querySelector('.main').getBoundingClientRect();
    if (main.width < Math.min(320, innerWidth)) problems.push('the chat column is squeezed to ' + Math.round(main.width) + ' px');
    if (bar.height > 56) problems.push('the top bar is ' + Math.round(bar.height) + ' px high');
    return problems;
  })()`);
}

describe('web UI: layout', () => {
  it('at 375 px the session list closes again: its close button, a tap beside it, Esc, and picking a session', async () => {
    await createSession('Garden plans');
    const { page, errors } = await openApp(web.browser, web.srv.url, PHONE);
    const toggle = page.getByTestId('sidebar-toggle');
    await expectSidebar(page, false);

    await toggle.click();
    await expectSidebar(page, true);
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, 'phone-sessions-open');
    await page.getByTestId('sidebar-close').click();
    await expectSidebar(page, false);
    // The chat is usable again: nothing covers the message box.
    await page.getByTestId('prompt-input').click();

    await toggle.click();
    await expectSidebar(page, true);
    await page.mouse.click(PHONE.width - 20, PHONE.height / 2);
    await expectSidebar(page, false);

    await toggle.click();
    await expectSidebar(page, true);
    await page.keyboard.press('Escape');
    await expectSidebar(page, false);
    await poll(() => page.evaluate('document.activeElement?.id')).toBe('sidebar-toggle');

    await toggle.click();
    await expectSidebar(page, true);
    await page.getByTestId('session-item').filter({ hasText: 'Garden plans' }).click();
    await poll(() => page.getByTestId('session-title').textContent()).toBe('Garden plans');
    await expectSidebar(page, false);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('keeps the top bar on one line at 1280, 1024, 768 and 375 px, with and without a side panel', async () => {
    web.srv.model.script(reply().text('Planted.').usage(1_234_567, 234_567));
    const { page, errors } = await openApp(web.browser, web.srv.url, { width: 1280, height: 800 });
    await sendPrompt(
      page,
      'Plan the vegetable garden for the whole summer, bed by bed, with a watering rota',
    );
    await poll(() => lastAnswer(page)).toBe('Planted.');
    await poll(() => page.getByTestId('usage').getAttribute('data-output')).toBe('234567');
    await poll(() => page.locator('body').getAttribute('data-running')).toBe('false');

    const found: string[] = [];
    for (const width of [1280, 1024, 768, 375]) {
      await page.setViewportSize({ width, height: 800 });
      // On a phone the session list slides away (off screen, closed).
      if (width === 375) await expectSidebar(page, false);
      for (const panel of ['none', 'settings', 'memory', 'workflows'] as const) {
        if (panel !== 'none') {
          // Workflows opens from the session list, which a phone shows on demand.
          if (panel === 'workflows' && width === 375) await page.getByTestId('sidebar-toggle').click();
          await page.getByTestId(`${panel}-toggle`).click();
          await page.getByTestId(`${panel}-panel`).waitFor();
          // …and makes way for the panel.
          if (panel === 'workflows' && width === 375) await expectSidebar(page, false);
        }
        for (const problem of await layoutProblems(page))
          found.push(`${width} px, panel ${panel}: ${problem}`);
        if (width === 1280 || width === 375) await screenshot(page, `topbar-${width}-${panel}`);
        if (panel !== 'none') {
          await page.getByTestId('drawer-close').click();
          await page.locator('#drawer').waitFor({ state: 'hidden' });
        }
      }
    }
    expect(found).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('names the model in the badge, with the profile as its tooltip, and follows a profile switch', async () => {
    const { page, errors } = await openApp(web.browser, web.srv.url);
    const badge = page.getByTestId('active-profile');
    await poll(() => badge.textContent()).toBe(LONG_MODEL);
    expect(await badge.getAttribute('title')).toContain('main_model');

    await page.getByTestId('settings-toggle').click();
    const select = page.getByTestId('profile-select');
    await poll(() => select.locator('option').allTextContents()).toContain('second · scripted-second');
    await select.selectOption('second');
    await poll(() => badge.textContent()).toBe('scripted-second');
    expect(await badge.getAttribute('title')).toContain('second');

    // An open session names the model it runs on (it keeps its profile).
    await page.getByTestId('session-item').filter({ hasText: 'vegetable garden' }).click();
    await poll(() => badge.textContent()).toBe(LONG_MODEL);
    await page.getByTestId('new-session').click();
    await poll(() => badge.textContent()).toBe('scripted-second');

    await select.selectOption('main_model');
    await poll(() => badge.textContent()).toBe(LONG_MODEL);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('keeps a profile switch when an older config answer arrives after it', async () => {
    const { page, errors } = await openApp(web.browser, web.srv.url);
    const badge = page.getByTestId('active-profile');
    await poll(() => badge.textContent()).toBe(LONG_MODEL);
    // The config read that opening the settings starts is answered (with the profile
    // active then) only after the user has switched.
    let answerStale: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      answerStale = resolve;
    });
    let fetched: () => void = () => undefined;
    const staleAnswer = new Promise<void>((resolve) => {
      fetched = resolve;
    });
    let answered: Promise<void> = Promise.resolve();
    await page.route('**/v1/config', (route) => {
      answered = (async () => {
        const response = await route.fetch(); // the server answers now, before the switch
        fetched();
        await held;
        await route.fulfill({ response });
      })();
    });
    await page.getByTestId('settings-toggle').click();
    await staleAnswer;
    const select = page.getByTestId('profile-select');
    await select.selectOption('second');
    await poll(() => badge.textContent()).toBe('scripted-second');
    const delivered = page.waitForResponse('**/v1/config');
    answerStale();
    await answered;
    await (await delivered).finished();
    await page.unroute('**/v1/config');
    // Once the page has read the stale answer (a few turns of its event loop), it was dropped:
    // the badge and the select stay on the switch.
    await page.evaluate(() => new Promise((resolve) => setTimeout(() => setTimeout(resolve, 0), 0)));
    expect(await badge.textContent()).toBe('scripted-second');
    expect(await select.inputValue()).toBe('second');
    await select.selectOption('main_model');
    await poll(() => badge.textContent()).toBe(LONG_MODEL);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

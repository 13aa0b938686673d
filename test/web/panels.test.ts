/** The memory panel and settings (theme, accent, model profile) against the real `tea serve`. */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openApp, poll, screenshot } from './browser.js';
import { startTeaServer, type TeaServer } from './serve.js';

let browser: Browser;
let srv: TeaServer;

beforeAll(async () => {
  [browser, srv] = await Promise.all([launchBrowser(), startTeaServer()]);
});

afterAll(async () => {
  await browser?.close();
  await srv?.close();
});

interface MemoryJson {
  id: number;
  content: string;
  pinned: boolean;
}

async function memories(): Promise<MemoryJson[]> {
  const res = await fetch(`${srv.url}/v1/memory?limit=100`);
  return ((await res.json()) as { data: MemoryJson[] }).data;
}

describe('web UI: panels', () => {
  it('adds, finds, pins and deletes a memory', async () => {
    const { page, errors } = await openApp(browser, srv.url);
    await page.getByTestId('memory-toggle').click();
    await page.getByTestId('memory-panel').waitFor();
    await page.getByTestId('memory-input').fill('The user prefers green tea over coffee');
    await page.getByTestId('memory-category').selectOption('preference');
    await page.getByTestId('memory-add').click();
    const item = page.getByTestId('memory-item').filter({ hasText: 'green tea' });
    await item.waitFor();
    const stored = (await memories()).find((m) => m.content.includes('green tea'));
    expect(stored).toBeDefined();

    await page.getByTestId('memory-input').fill('The deploy target is a Raspberry Pi');
    await page.getByTestId('memory-add').click();
    await page.getByTestId('memory-item').filter({ hasText: 'Raspberry' }).waitFor();

    // Newest first in the list; the search ranks the matching memory first.
    const first = () => page.getByTestId('memory-item').first().textContent();
    expect(await first()).toContain('Raspberry');
    await page.getByTestId('memory-search').fill('coffee');
    await poll(first).toContain('green tea');
    await screenshot(page, 'memory-search');

    await item.getByTestId('memory-pin').click();
    await poll(async () => (await memories()).find((m) => m.id === stored?.id)?.pinned).toBe(true);
    await poll(() => item.getByTestId('memory-pin').getAttribute('aria-pressed')).toBe('true');

    await item.getByTestId('memory-delete').click();
    await poll(() => item.count()).toBe(0);
    expect((await memories()).some((m) => m.id === stored?.id)).toBe(false);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('switches the theme and accent colour, and remembers them after a reload', async () => {
    const { page, errors } = await openApp(browser, srv.url);
    const background = () => page.evaluate('getComputedStyle(document.body).backgroundColor');
    const theme = () => page.evaluate('document.documentElement.dataset.theme');
    expect(await theme()).toBe('light');
    const light = await background();

    await page.getByTestId('theme-toggle').click();
    expect(await theme()).toBe('dark');
    const dark = await background();
    expect(dark).not.toBe(light);

    await page.getByTestId('settings-toggle').click();
    await page.getByTestId('accent-input').fill('#cc3366');
    const accent = () =>
      page.evaluate(`getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()`);
    expect(await accent()).toBe('#cc3366');
    await screenshot(page, 'dark-theme');

    await page.reload();
    await page.getByTestId('prompt-input').waitFor();
    expect(await theme()).toBe('dark');
    expect(await background()).toBe(dark);
    expect(await accent()).toBe('#cc3366');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('lists the model profiles and switches the active one', async () => {
    const { page, errors } = await openApp(browser, srv.url);
    await page.getByTestId('settings-toggle').click();
    const select = page.getByTestId('profile-select');
    await poll(() => select.locator('option').allTextContents()).toContain('second');
    await select.selectOption('second');
    await poll(() => page.getByTestId('active-profile').textContent()).toBe('second');
    const config = (await (await fetch(`${srv.url}/v1/config`)).json()) as { active_profile: string };
    expect(config.active_profile).toBe('second');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

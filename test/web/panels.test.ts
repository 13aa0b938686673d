/** The memory panel (search scores, versions, history and restore) and settings (theme, accent, model profile) against the real `tea serve`. */
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

interface Remembered {
  outcome: string;
  memory: MemoryJson;
  superseded: MemoryJson | null;
}

async function remember(content: string): Promise<Remembered> {
  const res = await fetch(`${srv.url}/v1/memory`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content, category: 'fact' }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Remembered;
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

  it('shows search scores and folded versions, and restores old versions from the history', async () => {
    const v1 = await remember('The staging API of Heron runs on port 9090.');
    const v2 = await remember("Heron's staging API now runs on port 9191.");
    expect(v2.outcome).toBe('update');
    expect(v2.superseded?.id).toBe(v1.memory.id);

    const { page, errors } = await openApp(browser, srv.url);
    await page.getByTestId('memory-toggle').click();
    await page.getByTestId('memory-search').fill('Heron staging port');
    const hit = page.getByTestId('memory-item').filter({ hasText: '9191' });
    await hit.waitFor();
    await poll(() => page.getByTestId('memory-item').count()).toBe(1);
    expect(await hit.getByTestId('memory-score').textContent()).toMatch(/^relevance (0\.\d\d|1\.00)$/);
    expect(await hit.getByTestId('memory-score').isVisible()).toBe(true);

    // The 9090 version is folded under the answer; the summary opens it from the keyboard.
    const summary = hit.getByTestId('memory-versions').locator('summary');
    expect(await summary.textContent()).toBe('1 earlier version');
    const folded = hit.getByTestId('memory-folded-version');
    expect(await folded.isVisible()).toBe(false);
    await summary.focus();
    await page.keyboard.press('Enter');
    await poll(() => folded.isVisible()).toBe(true);
    expect(await folded.textContent()).toMatch(/port 9090\.\d{4}-\d\d-\d\d \d\d:\d\d → \d{4}-/);
    await screenshot(page, 'memory-versions');

    // History: the chain, newest first; restore the old version beside the new one.
    await hit.getByTestId('memory-history').click();
    const versions = hit.getByTestId('memory-version');
    await poll(() => versions.count()).toBe(2);
    expect(await versions.nth(0).textContent()).toContain('9191');
    expect(await versions.nth(0).textContent()).toContain('current');
    expect(await versions.nth(0).getByTestId('memory-restore').count()).toBe(0);
    expect(await versions.nth(1).textContent()).toContain(`superseded by #${v2.memory.id}`);
    expect(await hit.getByTestId('memory-history').getAttribute('aria-expanded')).toBe('true');
    await screenshot(page, 'memory-history');
    await versions.nth(1).getByTestId('memory-restore').click();
    await page
      .getByTestId('toast')
      .filter({ hasText: `#${v1.memory.id} restored` })
      .waitFor();
    await poll(async () => (await memories()).map((m) => m.id)).toEqual(
      expect.arrayContaining([v1.memory.id, v2.memory.id]),
    );
    await page.getByTestId('memory-search').fill('');
    await page.getByTestId('memory-item').filter({ hasText: '9090' }).waitFor();
    await page.getByTestId('memory-item').filter({ hasText: '9191' }).waitFor();

    // A newer value supersedes one of them; "Make current" brings that one back as the current version.
    const v3 = await remember("Heron's staging API now runs on port 9292.");
    expect(v3.outcome).toBe('update');
    const old = v3.superseded!;
    await page.getByTestId('memory-search').fill('Heron staging port');
    const newest = page.getByTestId('memory-item').filter({ hasText: '9292' });
    await newest.waitFor();
    await newest.getByTestId('memory-history').click();
    const oldRow = newest.getByTestId('memory-version').filter({ hasText: old.content });
    await oldRow.waitFor();
    expect(await oldRow.textContent()).toContain(`superseded by #${v3.memory.id}`);
    await oldRow.getByTestId('memory-restore-replace').focus();
    await page.keyboard.press('Enter');
    await page
      .getByTestId('toast')
      .filter({ hasText: `#${old.id} is current again` })
      .waitFor();
    const history = (await (await fetch(`${srv.url}/v1/memory/${old.id}/history`)).json()) as {
      data: Array<{ id: number; valid_to: number | null; superseded_by: number | null }>;
    };
    expect(history.data[0]).toMatchObject({ id: old.id, valid_to: null });
    expect(history.data.find((m) => m.id === v3.memory.id)?.superseded_by).toBe(old.id);
    // The history stays open on the restored version: it is current, the 9292 one superseded by it.
    const rows = page.getByTestId('memory-version');
    await poll(() => rows.filter({ hasText: old.content }).textContent()).toContain('current');
    await poll(() => rows.filter({ hasText: '9292' }).textContent()).toContain(`superseded by #${old.id}`);
    await poll(() => page.evaluate('document.activeElement?.dataset.testid')).toBe('memory-history-list');
    await screenshot(page, 'memory-restored');
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

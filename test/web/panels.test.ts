/** The memory panel (search scores, versions, history and restore) and settings (theme, accent, model profile) against the real `tea serve`. */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useWebApp } from './app.js';
import { openApp, poll, screenshot } from './browser.js';

const web = useWebApp();

interface MemoryJson {
  id: number;
  content: string;
  pinned: boolean;
}

async function memories(): Promise<MemoryJson[]> {
  const res = await fetch(`${web.srv.url}/v1/memory?limit=100`);
  return ((await res.json()) as { data: MemoryJson[] }).data;
}

interface Remembered {
  outcome: string;
  memory: MemoryJson;
  superseded: MemoryJson | null;
}

async function remember(content: string): Promise<Remembered> {
  const res = await fetch(`${web.srv.url}/v1/memory`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content, category: 'fact' }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Remembered;
}

async function restore(id: number): Promise<void> {
  const res = await fetch(`${web.srv.url}/v1/memory/${id}/restore`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(200);
}

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Fails when a visible toast covers one of `targets`. */
async function expectToastsClear(page: Page, targets: Locator[]): Promise<void> {
  const toasts = await page.getByTestId('toast').all();
  expect(toasts.length).toBeGreaterThan(0);
  for (const t of toasts) {
    const box = await t.boundingBox();
    expect(box).not.toBeNull();
    for (const target of targets) {
      const other = await target.boundingBox();
      if (box && other) expect(overlap(box, other), `${await t.textContent()} covers ${target}`).toBe(false);
    }
  }
}

/**
 * WCAG contrast ratio of every visible badge in the memory list: colours resolved
 * through a canvas (any CSS colour syntax), the background from the nearest painted ancestor.
 */
function badgeContrast(page: Page): Promise<Array<{ text: string; ratio: number }>> {
  return page.evaluate(`(() => {
    const ctx = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    const rgba = (c) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = c;
      ctx.fillRect(0, 0, 1, 1);
      return Array.from(ctx.getImageData(0, 0, 1, 1).data);
    };
    const lum = ([r, g, b]) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (node) => {
      for (let n = node; n; n = n.parentElement) {
        const c = rgba(getComputedStyle(n).backgroundColor);
        if (c[3] > 0) return c;
      }
      return [255, 255, 255, 255];
    };
    return [...document.querySelectorAll('#memory-list .badge')]
      .filter((n) => n.getClientRects().length > 0)
      .map((n) => {
        const [a, b] = [lum(rgba(getComputedStyle(n).color)), lum(background(n))].sort((x, y) => y - x);
        return { text: n.textContent, ratio: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100 };
      });
  })()`);
}

const MEMORY_INPUTS = ['memory-search', 'memory-input', 'memory-category', 'memory-add'];

describe('web UI: panels', () => {
  it('adds, finds, pins and deletes a memory', async () => {
    const { page, errors } = await openApp(web.browser, web.srv.url);
    // The top bar's icon buttons have a name and the same visible tooltip.
    const toggle = page.getByRole('button', { name: 'Memory', exact: true });
    expect(await toggle.getAttribute('data-testid')).toBe('memory-toggle');
    for (const id of ['memory-toggle', 'settings-toggle', 'theme-toggle']) {
      const button = page.getByTestId(id);
      expect(await button.getAttribute('title')).toBe(await button.getAttribute('aria-label'));
    }
    await toggle.click();
    await page.getByTestId('memory-panel').waitFor();
    // New memories are facts by default, as in the CLI and the API.
    const category = page.getByTestId('memory-category');
    expect(await category.inputValue()).toBe('fact');
    expect(await category.locator('option').allTextContents()).toEqual([
      'general',
      'fact',
      'preference',
      'instruction',
      'reminder',
      'lesson',
    ]);
    await page.getByTestId('memory-input').fill('The user prefers green tea over coffee');
    await page.getByTestId('memory-category').selectOption('preference');
    await page.getByTestId('memory-add').click();
    const item = page.getByTestId('memory-item').filter({ hasText: 'green tea' });
    await item.waitFor();
    const stored = (await memories()).find((m) => m.content.includes('green tea'));
    expect(stored).toBeDefined();
    // One date format: local "YYYY-MM-DD HH:MM", as in the version lists.
    expect(await item.locator('.memory-meta time').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    // The toast sits above the composer, clear of the panel's inputs and of the message box.
    await page.getByTestId('toast').filter({ hasText: 'Memory saved' }).first().waitFor();
    await expectToastsClear(
      page,
      [...MEMORY_INPUTS, 'prompt-input'].map((id) => page.getByTestId(id)),
    );

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

    const { page, errors } = await openApp(web.browser, web.srv.url);
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
    expect(await folded.textContent()).toMatch(
      new RegExp(
        `^#${v1.memory.id} The staging API of Heron runs on port 9090\\.\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d → \\d{4}-`,
      ),
    );
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
    // The open history lists the folded versions too: each version is shown once.
    expect(await hit.getByTestId('memory-versions').isVisible()).toBe(false);
    const rowsShown = await hit.locator('.memory-version:visible').all();
    const shown = await Promise.all(rowsShown.map((r) => r.getAttribute('data-memory-id')));
    expect(shown).toEqual([String(v2.memory.id), String(v1.memory.id)]);
    await screenshot(page, 'memory-history');
    await versions.nth(1).getByTestId('memory-restore').click();
    await page
      .getByTestId('toast')
      .filter({ hasText: `#${v1.memory.id} restored` })
      .waitFor();
    await poll(async () => (await memories()).map((m) => m.id)).toEqual(
      expect.arrayContaining([v1.memory.id, v2.memory.id]),
    );
    // A plain restore cuts the chain: the restored memory is listed as its own item (the
    // search still finds both), the stale history is closed, and nothing lists #v1 twice.
    const restored = page.locator(`[data-testid="memory-item"][data-memory-id="${v1.memory.id}"]`);
    await restored.waitFor();
    expect(await restored.getByTestId('memory-also-active').isVisible()).toBe(true);
    await poll(() => page.locator(`[data-memory-id="${v1.memory.id}"]`).count()).toBe(1);
    expect(await page.getByTestId('memory-history-list').filter({ visible: true }).count()).toBe(0);
    expect(await page.getByTestId('memory-item').count()).toBe(2);
    expect(await hit.getByTestId('memory-versions').count()).toBe(0);
    await poll(() => page.evaluate('document.activeElement?.dataset.memoryId')).toBe(String(v1.memory.id));
    await screenshot(page, 'memory-restored-plain');
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
      .filter({ hasText: `#${v3.memory.id} is now an earlier version` })
      .waitFor();
    // Its statement is current again as a new version from now: the periods never overlap.
    const history = (await (await fetch(`${web.srv.url}/v1/memory/${v3.memory.id}/history`)).json()) as {
      data: Array<{ id: number; content: string; valid_to: number | null; superseded_by: number | null }>;
    };
    const current = history.data[0]!;
    expect(current).toMatchObject({ content: old.content, valid_to: null });
    expect(history.data.find((m) => m.id === v3.memory.id)?.superseded_by).toBe(current.id);
    // The history stays open on the restored version: it is current, the 9292 one superseded by it.
    const rows = page.getByTestId('memory-version');
    await poll(() =>
      page.locator(`[data-testid="memory-version"][data-memory-id="${current.id}"]`).textContent(),
    ).toContain('current');
    await poll(() => rows.filter({ hasText: '9292' }).textContent()).toContain(
      `superseded by #${current.id}`,
    );
    await poll(() => page.evaluate('document.activeElement?.dataset.testid')).toBe('memory-history-list');
    await screenshot(page, 'memory-restored');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('keeps toasts clear of the memory panel at 390 px wide', async () => {
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await page.setViewportSize({ width: 390, height: 800 });
    await page.getByTestId('memory-toggle').click();
    await page.getByTestId('memory-add').click();
    await page.getByTestId('toast').filter({ hasText: 'Write the memory first' }).waitFor();
    await page.getByTestId('memory-input').fill('The Kestrel wiki lives at wiki.kestrel.test.');
    await page.getByTestId('memory-add').click();
    await page.getByTestId('toast').filter({ hasText: 'Memory saved' }).waitFor();
    expect(await page.getByTestId('toast').count()).toBe(2);
    await expectToastsClear(
      page,
      MEMORY_INPUTS.map((id) => page.getByTestId(id)),
    );
    for (const t of await page.getByTestId('toast').all()) {
      const box = (await t.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await screenshot(page, 'memory-toast-390');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('gives the memory badges WCAG AA contrast in the light and the dark theme', async () => {
    const v1 = await remember('The Osprey cache runs on port 7000.');
    const v2 = await remember('The Osprey cache now runs on port 7100.');
    expect(v2.superseded?.id).toBe(v1.memory.id);
    await restore(v1.memory.id);
    await fetch(`${web.srv.url}/v1/memory/${v1.memory.id}/pin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pinned: true }),
    });
    expect((await remember('The Osprey cache now runs on port 7200.')).outcome).toBe('update');

    const { page, errors } = await openApp(web.browser, web.srv.url);
    await page.getByTestId('memory-toggle').click();
    await page.getByTestId('memory-search').fill('Osprey cache port');
    const first = page.getByTestId('memory-item').first();
    await first.getByTestId('memory-score').waitFor();
    await first.getByTestId('memory-history').click();
    await first.locator('.state-superseded').first().waitFor();
    for (const theme of ['light', 'dark']) {
      if (theme === 'dark') await page.getByTestId('theme-toggle').click();
      expect(await page.evaluate('document.documentElement.dataset.theme')).toBe(theme);
      const badges = await badgeContrast(page);
      const texts = badges.map((b) => b.text ?? '');
      for (const kind of ['fact', 'pinned', 'also active', 'current', 'superseded by']) {
        expect({ kind, texts, ok: texts.some((t) => t.startsWith(kind)) }).toMatchObject({ ok: true });
      }
      expect(texts.some((t) => /^relevance \d\.\d\d$/.test(t))).toBe(true);
      expect(badges.filter((b) => b.ratio < 4.5)).toEqual([]);
      await screenshot(page, `memory-badges-${theme}`);
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('switches the theme and accent colour, and remembers them after a reload', async () => {
    const { page, errors } = await openApp(web.browser, web.srv.url);
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
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await page.getByTestId('settings-toggle').click();
    const select = page.getByTestId('profile-select');
    await poll(() => select.locator('option').allTextContents()).toContain('second · scripted-second');
    await select.selectOption('second');
    // The badge names the model; the profile is in its tooltip.
    await poll(() => page.getByTestId('active-profile').textContent()).toBe('scripted-second');
    expect(await page.getByTestId('active-profile').getAttribute('title')).toContain('profile second');
    const config = (await (await fetch(`${web.srv.url}/v1/config`)).json()) as { active_profile: string };
    expect(config.active_profile).toBe('second');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

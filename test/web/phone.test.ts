/**
 * The web UI on a 375 px phone against the real `tea serve`: export and the token and
 * cost counts are in reach (Settings, "This session"), the empty message box shows its
 * whole placeholder, and a long model name gives way before the session title.
 * Measured in Chromium (element boxes, scroll sizes), not by screenshots.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { lastAnswer, openApp, poll, screenshot, sendPrompt } from './browser.js';

const PHONE = { width: 375, height: 740 };
const LONG_MODEL = 'qwen2.5-coder-32b-instruct-q4_K_M-preview-20250929';

const web = useWebApp(['--permission-mode', 'ask'], { models: { main: LONG_MODEL } });

/** The message box's sizes, and whether its placeholder, typed in, would fit without scrolling. */
function promptBox(page: Page): Promise<{
  placeholder: string;
  clientHeight: number;
  scrollHeight: number;
  placeholderFits: boolean;
}> {
  return page.evaluate(`(() => {
    const box = document.getElementById('prompt-input');
    const sizes = { placeholder: box.placeholder, clientHeight: box.clientHeight, scrollHeight: box.scrollHeight };
    // The placeholder as text, in the box's own font and width: does it need more height?
    const probe = box.cloneNode();
    probe.removeAttribute('id');
    probe.style.height = box.offsetHeight + 'px';
    probe.style.width = box.offsetWidth + 'px';
    probe.style.position = 'absolute';
    probe.style.visibility = 'hidden';
    probe.value = box.placeholder;
    box.parentElement.appendChild(probe);
    const placeholderFits = probe.scrollHeight <= probe.clientHeight;
    probe.remove();
    return { ...sizes, placeholderFits };
  })()`);
}

/** Widths of the session title and the model badge, and whether each is cut (ellipsis). */
function titleAndBadge(
  page: Page,
): Promise<{ title: number; badge: number; titleCut: boolean; badgeCut: boolean }> {
  return page.evaluate(`(() => {
    const title = document.getElementById('session-title');
    const badge = document.getElementById('active-profile');
    return {
      title: Math.round(title.getBoundingClientRect().width),
      badge: Math.round(badge.getBoundingClientRect().width),
      titleCut: title.scrollWidth > title.clientWidth,
      badgeCut: badge.scrollWidth > badge.clientWidth,
    };
  })()`);
}

describe('web UI: on a phone', () => {
  it('shows the token and cost counts and exports the session as Markdown and PDF from Settings', async () => {
    web.srv.model.script(reply().text('Beds one to four, watered on Mondays.').usage(12_345, 678));
    const { page, errors } = await openApp(web.browser, web.srv.url, PHONE);
    const exportMd = page.getByTestId('session-export-markdown');
    await page.getByTestId('settings-toggle').click();
    // No session yet: nothing to export or count.
    expect(await exportMd.isDisabled()).toBe(true);
    await page.getByTestId('drawer-close').click();

    await sendPrompt(page, 'Plan the garden beds');
    await poll(() => lastAnswer(page)).toBe('Beds one to four, watered on Mondays.');
    // The top bar has no room for them at this width.
    expect(await page.getByTestId('export-markdown').isVisible()).toBe(false);
    expect(await page.getByTestId('usage').isVisible()).toBe(false);

    await page.getByTestId('settings-toggle').click();
    const usage = page.getByTestId('session-usage');
    await poll(() => usage.textContent()).toBe('12,345 input tokens · 678 output tokens · $0');
    expect(await usage.isVisible()).toBe(true);
    await screenshot(page, 'phone-session-settings');

    const [markdown] = await Promise.all([page.waitForEvent('download'), exportMd.click()]);
    expect(markdown.suggestedFilename()).toMatch(/\.md$/);
    const text = readFileSync((await markdown.path())!, 'utf8');
    expect(text).toContain('Plan the garden beds');
    expect(text).toContain('Beds one to four, watered on Mondays.');

    const [pdf] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('session-export-pdf').click(),
    ]);
    expect(pdf.suggestedFilename()).toMatch(/\.pdf$/);
    expect(
      readFileSync((await pdf.path())!)
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows the whole placeholder in the empty message box, before and after the first message', async () => {
    web.srv.model.script(reply().text('Hello.'));
    const { page, errors } = await openApp(web.browser, web.srv.url, PHONE);
    const before = await promptBox(page);
    expect(before.placeholderFits, JSON.stringify(before)).toBe(true);
    expect(before.scrollHeight).toBeLessThanOrEqual(before.clientHeight);
    await screenshot(page, 'phone-empty-composer');

    await sendPrompt(page, 'Hi');
    await poll(() => lastAnswer(page)).toBe('Hello.');
    const after = await promptBox(page);
    expect(after.placeholderFits, JSON.stringify(after)).toBe(true);
    expect(after.scrollHeight).toBeLessThanOrEqual(after.clientHeight);
    // The box did not grow for nothing: it is as high as before.
    expect(after.clientHeight).toBe(before.clientHeight);

    // On a wide screen the full hint fits and shows.
    await page.setViewportSize({ width: 1280, height: 800 });
    await poll(async () => (await promptBox(page)).placeholder).toContain('Shift+Enter');
    const wide = await promptBox(page);
    expect(wide.placeholderFits, JSON.stringify(wide)).toBe(true);
    expect(wide.scrollHeight).toBeLessThanOrEqual(wide.clientHeight);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('cuts a long model name before the session title', async () => {
    const title = 'Please plan the vegetable garden for the whole summer';
    const res = await fetch(`${web.srv.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title }),
    });
    const { id } = (await res.json()) as { id: string };
    const { page, errors } = await openApp(web.browser, `${web.srv.url}/#session=${id}`, PHONE);
    await poll(() => page.getByTestId('session-title').textContent()).toBe(title);
    await poll(() => page.getByTestId('active-profile').textContent()).toBe(LONG_MODEL);
    const sizes = await titleAndBadge(page);
    await screenshot(page, 'phone-long-model');
    // The badge is cut first; the title keeps most of the room ("Pleas…" was 48 px).
    expect(sizes.badgeCut, JSON.stringify(sizes)).toBe(true);
    expect(sizes.title, JSON.stringify(sizes)).toBeGreaterThanOrEqual(100);
    expect(sizes.title, JSON.stringify(sizes)).toBeGreaterThan(sizes.badge);
    // The model stays named in the badge's tooltip.
    expect(await page.getByTestId('active-profile').getAttribute('title')).toContain(LONG_MODEL);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

/** One headless Debian Chromium per test file, driven by playwright-core. */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = process.env.TEA_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'web');

/** `extraArgs`: more Chromium flags, e.g. `--host-resolver-rules=…` to give 127.0.0.1 another name. */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the browser tests need Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium fonts-wqy-microhei, as .ci/run does) or set TEA_CHROMIUM to another Chromium`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

/**
 * A fresh page (its own localStorage) on the app. Console errors and failed page
 * scripts are collected so a test can assert the page ran cleanly.
 */
export async function openApp(
  browser: Browser,
  url: string,
  viewport: { width: number; height: number } = { width: 1200, height: 800 },
): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(8000);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  await page.goto(url);
  await page.getByTestId('prompt-input').waitFor();
  return { page, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false });
}

/** Types a prompt and presses Enter (the way a person sends). */
export async function sendPrompt(page: Page, text: string): Promise<void> {
  const input = page.getByTestId('prompt-input');
  await input.fill(text);
  await input.press('Enter');
}

/** The text of the latest streamed answer (trimmed: rendered Markdown ends in a newline). */
export async function lastAnswer(page: Page): Promise<string> {
  const node = page.getByTestId('assistant-text').last();
  if ((await node.count()) === 0) return '';
  return ((await node.textContent()) ?? '').trim();
}

/** The computed background colour of the first element a locator matches. */
export function backgroundOf(locator: Locator): Promise<string> {
  // test/ is type-checked without DOM types: reach the browser's function untyped.
  type Styles = { getComputedStyle(node: unknown): { backgroundColor: string } };
  return locator
    .first()
    .evaluate((node) => (globalThis as unknown as Styles).getComputedStyle(node).backgroundColor);
}

/** `expect.poll` with room for a busy machine (vitest's default gives up after 1 s). */
export function poll<T>(fn: () => T | Promise<T>) {
  return expect.poll(fn, { timeout: 6000, interval: 50 });
}

/** On how many lines the element's longest text runs (1 when nothing wraps). */
export function textLines(locator: Locator): Promise<number> {
  // test/ is type-checked without DOM types: the few browser calls, typed by hand.
  type Rect = { width: number; top: number };
  type Doc = {
    createTreeWalker(root: unknown, show: number): { nextNode(): unknown };
    createRange(): { selectNodeContents(node: unknown): void; getClientRects(): ArrayLike<Rect> };
  };
  return locator.first().evaluate((node) => {
    const doc = (globalThis as unknown as { document: Doc }).document;
    const walker = doc.createTreeWalker(node, 4 /* NodeFilter.SHOW_TEXT */);
    let most = 0;
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      const range = doc.createRange();
      range.selectNodeContents(text);
      const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
      most = Math.max(most, new Set(rects.map((r) => Math.round(r.top))).size);
    }
    return most;
  });
}

/**
 * The web UI of a token-protected `tea serve` (TEA_API_TOKEN set): opened without
 * `?token=`, it asks for the token instead of showing API errors, checks it, keeps
 * it (localStorage, or sessionStorage when not remembered) and uses it everywhere.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { lastAnswer, launchBrowser, openApp, poll, screenshot, sendPrompt } from './browser.js';
import { startTeaServer, type TeaServer } from './serve.js';

const TOKEN = 'tea-web-test-token-5f1c2a9e7b';

let browser: Browser;
let srv: TeaServer;

beforeAll(async () => {
  [browser, srv] = await Promise.all([
    launchBrowser(),
    startTeaServer(['--permission-mode', 'ask'], { env: { TEA_API_TOKEN: TOKEN } }),
  ]);
  const res = await fetch(`${srv.url}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ title: 'Behind the token' }),
  });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await browser?.close();
  await srv?.close();
});

/** Page errors, less the browser's own log line for each refused (401) request. */
const unexpected = (errors: string[]) => errors.filter((e) => !/status of 401/.test(e));

describe('web UI: token', () => {
  it('asks for the token instead of showing API errors, keeps it and uses it', async () => {
    const { page, errors } = await openApp(browser, srv.url);
    const dialog = page.getByTestId('token-prompt');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('TEA_API_TOKEN');
    expect(await page.getByTestId('toast').count()).toBe(0);
    await screenshot(page, 'token-prompt');

    await dialog.getByTestId('token-input').fill('not-the-token');
    await dialog.getByTestId('token-submit').click();
    await poll(() => dialog.getByTestId('token-error').textContent()).toContain('not accepted');
    expect(await dialog.isVisible()).toBe(true);

    await dialog.getByTestId('token-input').fill(TOKEN);
    await dialog.getByTestId('token-input').press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('session-item').filter({ hasText: 'Behind the token' }).waitFor();
    await poll(() => page.getByTestId('active-profile').textContent()).toBe('scripted-model');
    expect(await page.evaluate("localStorage.getItem('tea.token')")).toBe(TOKEN);
    expect(await page.getByTestId('toast').count()).toBe(0);

    // The turn's event stream carries the token too.
    srv.model.script(reply().text('Come in.'));
    await sendPrompt(page, 'Knock knock');
    await poll(() => lastAnswer(page)).toBe('Come in.');

    await page.reload();
    await page.getByTestId('session-item').filter({ hasText: 'Knock knock' }).waitFor();
    expect(await dialog.isVisible()).toBe(false);
    expect(unexpected(errors)).toEqual([]);
    await page.context().close();
  });

  it('asks again when the saved token is refused; unticked "Remember" keeps it for this tab only', async () => {
    const { page, errors } = await openApp(browser, `${srv.url}/?token=an-old-token`);
    // The token is taken out of the address bar (not bookmarked or shared by accident).
    expect(page.url()).not.toContain('token');
    const dialog = page.getByTestId('token-prompt');
    await dialog.waitFor();
    expect(await dialog.getByTestId('token-error').textContent()).toContain('not accepted');
    await dialog.getByTestId('token-remember').uncheck();
    await dialog.getByTestId('token-input').fill(TOKEN);
    await dialog.getByTestId('token-submit').click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('session-item').first().waitFor();
    expect(await page.evaluate("localStorage.getItem('tea.token')")).toBeNull();
    expect(await page.evaluate("sessionStorage.getItem('tea.token')")).toBe(TOKEN);

    // A link with the right token opens without asking.
    const other = await page.context().newPage();
    await other.goto(`${srv.url}/?token=${TOKEN}`);
    await other.getByTestId('session-item').first().waitFor();
    expect(await other.getByTestId('token-prompt').isVisible()).toBe(false);
    expect(other.url()).not.toContain('token');
    expect(unexpected(errors)).toEqual([]);
    await page.context().close();
  });
});

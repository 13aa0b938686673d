/**
 * The MCP panel against the real `tea serve` with a small SDK server
 * (test/fixtures/mcp-features-server.mjs): status and tools, a resource read in
 * place, a prompt's required argument checked in the panel, then filled in and put
 * into the composer; and the routes behind it.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { lastAnswer, openApp, poll, screenshot, sendPrompt } from './browser.js';

const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'mcp-features-server.mjs');
const web = useWebApp([], {
  extraConfig: `mcp_servers:\n  feat: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE)}] }\n`,
});

const api = (p: string, init: RequestInit = {}) =>
  fetch(`${web.srv.url}${p}`, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });

describe('web UI: MCP panel', () => {
  it('shows the server, reads a resource, and puts a filled-in prompt into the composer', async () => {
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await page.getByTestId('mcp-toggle').click();
    const server = page.locator('[data-testid="mcp-server"][data-name="feat"]');
    await server.waitFor();
    expect(await server.getByTestId('mcp-status').textContent()).toBe('connected');
    expect(await server.getByTestId('mcp-tools').textContent()).toBe(
      'Tools (6): grow, doomed, ask_defaults, confirm_defaults, open_page, summarize',
    );
    expect(await server.getByTestId('mcp-template').textContent()).toContain('note://topics/{name}');

    const hello = server.locator('[data-testid="mcp-resource"][data-uri="note://hello"]');
    await hello.getByTestId('mcp-read').click();
    await poll(() => hello.getByTestId('mcp-resource-text').textContent()).toBe('hello from a resource');

    const review = server.locator('[data-testid="mcp-prompt"][data-name="review"]');
    // A required argument left empty is caught in the panel: no request, a toast naming it.
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/prompts/')) asked.push(r.url());
    });
    await review.getByTestId('mcp-use-prompt').click();
    await poll(() => page.getByTestId('toast').last().textContent()).toBe('Prompt "review" needs file');
    expect(asked).toEqual([]);
    expect(await review.getByTestId('mcp-prompt-arg').getAttribute('aria-required')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('file');
    await screenshot(page, 'mcp-prompt-missing-argument');

    await review.getByTestId('mcp-prompt-arg').fill('src/a.ts');
    await review.getByTestId('mcp-use-prompt').click();
    await poll(() => page.getByTestId('prompt-input').inputValue()).toBe('Please review src/a.ts carefully.');
    await screenshot(page, 'mcp-panel');
    expect(errors).toEqual([]);
  });

  it("a server's sampling request is an approval card; approved, the session's model answers it", async () => {
    web.srv.model.reset();
    web.srv.model.script(
      reply().toolCall('mcp__feat__summarize', {}),
      reply().text('Tea: a drink.'),
      reply().text('The server has its summary.'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'summarize via the server');
    // The tool itself first (write-capable MCP tools ask), then its sampling request.
    await page.getByTestId('approval').nth(0).getByTestId('approve-once').click();
    const sampling = page.getByTestId('approval').nth(1);
    await sampling.waitFor();
    expect(await sampling.textContent()).toContain('mcp_sampling');
    expect(await sampling.textContent()).toContain('Summarize: tea is a drink.');
    await screenshot(page, 'mcp-sampling-approval');
    await sampling.getByTestId('approve-once').click();
    await poll(() => lastAnswer(page)).toBe('The server has its summary.');
    expect(JSON.stringify(web.srv.model.requests[2]!.body)).toContain(
      'sampled: Tea: a drink. (scripted-model)',
    );
    expect(errors).toEqual([]);
  });

  it('the routes: 404 for an unknown server or prompt (test/server/mcp-routes.test.ts has the rest)', async () => {
    const unknown = await api('/v1/mcp/servers/nope/resource?uri=x%3A%2F%2Fy', {
      headers: { 'x-tea-client': 'web' },
    });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe(
      'no MCP server named "nope"; configured: feat',
    );
    const missing = await api('/v1/mcp/servers/feat/prompts/nope', {
      method: 'POST',
      body: '{}',
      headers: { 'x-tea-client': 'web' },
    });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe(
      'MCP server "feat" has no prompt "nope"; its prompts: review',
    );
  });
});

/**
 * A client tool's call (chat completions `tools`) that waits for the API client's
 * result, as the web UI shows it: "waiting for the API client", not cancelled; the
 * session API names the waiting calls.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { openApp, poll, screenshot, sendPrompt } from './browser.js';

const web = useWebApp([], { resetModel: true });

const tools = [
  { type: 'function', function: { name: 'ask_human', parameters: { type: 'object', properties: {} } } },
];

describe('web UI: client tool calls', () => {
  it('a call waiting for the API client shows as waiting, in the card and the session API', async () => {
    web.srv.model.script(reply().toolCall('ask_human', {}, { id: 'call_wait1' }));
    const res = await fetch(`${web.srv.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tea', messages: [{ role: 'user', content: 'Ask the human' }], tools }),
    });
    expect(res.status).toBe(200);
    const id = ((await res.json()) as { session_id: string }).session_id;
    const session = (await (await fetch(`${web.srv.url}/v1/sessions/${id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(session.awaiting_client_calls).toEqual(['call_wait1']);

    const { page, errors } = await openApp(web.browser, web.srv.url);
    await page.locator(`[data-session-id="${id}"]`).click();
    const card = page.locator('[data-testid="tool-card"][data-call-id="call_wait1"]');
    await card.waitFor();
    expect(await card.getAttribute('data-status')).toBe('awaiting_client');
    expect(await card.getByTestId('tool-status').textContent()).toBe('waiting for the API client');
    await screenshot(page, 'client-tool-waiting');

    // The user types instead: the call gets its documented error result; nothing waits any more.
    web.srv.model.script(reply().text('Carrying on without it.'));
    await sendPrompt(page, 'Never mind');
    await poll(() => card.getAttribute('data-status')).toBe('error');
    expect(await card.getByTestId('tool-result').textContent()).toContain('The client sent no result');
    const after = (await (await fetch(`${web.srv.url}/v1/sessions/${id}`)).json()) as Record<string, unknown>;
    expect(after.awaiting_client_calls).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('a session with no waiting call reports none', async () => {
    const res = await fetch(`${web.srv.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'x-tea-client': 'test' },
    });
    const id = ((await res.json()) as { id: string }).id;
    const session = (await (await fetch(`${web.srv.url}/v1/sessions/${id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(session.awaiting_client_calls).toEqual([]);
  });
});

/**
 * Sub-agents in the web UI, against the real `tea serve` (ask mode) and the scripted
 * model: a card per child under the call that started it (label, role, status,
 * tokens) that expands to the child's transcript, live from the stream while it runs
 * and from the API after a reload; a child's approval asked in its name; the
 * session's usage with the sub-agents' share.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { firstUser, isChild, isFirstCall, task } from '../multi/helpers.js';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { lastAnswer, openApp, poll, sendPrompt } from './browser.js';

const web = useWebApp(['--permission-mode', 'ask'], { resetModel: true });

afterEach(() => web.srv.model.respond(undefined));

/** The parent's own answers: assistant text outside any sub-agent's transcript. */
const OWN_TEXT = '[data-testid="assistant-text"]:not([data-testid="subagent-transcript"] *)';

describe('web UI: sub-agents', () => {
  it('shows child cards under the call, live, that expand to their transcripts, also after a reload', async () => {
    web.srv.model.respond((body) => {
      if (isChild(body)) {
        if (firstUser(body).includes('part 2'))
          return isFirstCall(body)
            ? reply().toolCall('glob', { pattern: '*.md' }).usage(40, 4)
            : reply().text('CHILD TWO: nothing to report').usage(40, 4);
        return isFirstCall(body)
          ? reply().toolCall('write_file', { path: 'child.txt', content: 'from a child\n' }).usage(100, 10)
          : reply().text('CHILD ONE: wrote child.txt').usage(100, 10);
      }
      if (isFirstCall(body))
        return reply()
          .toolCall('delegate_tasks', { tasks: [task(1), task(2)] })
          .usage(10, 1);
      return reply().text('Both sub-agents are done.').usage(10, 1);
    });
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Do both parts in parallel');

    // Two cards under the delegate_tasks card; the writer waits for the user, in its name.
    const box = page.locator('[data-testid="subagent-cards"]');
    await poll(() => box.getByTestId('subagent-card').count()).toBe(2);
    const approval = page.getByTestId('approval');
    await approval.waitFor();
    const asker = (await approval.getByTestId('approval-agent').textContent()) ?? '';
    expect(asker).toMatch(/^general #[12]$/);
    expect(await approval.locator('.prompt-title').textContent()).toBe(
      `${asker} wants to run write_file on child.txt. Allow it?`,
    );
    const writer = page.locator('[data-testid="subagent-card"]', {
      has: page.getByTestId('subagent-label').getByText(asker, { exact: true }),
    });
    await poll(() => writer.getAttribute('data-status')).toBe('waiting for approval');
    expect(await writer.getByTestId('subagent-role').textContent()).toBe('general');
    // Its transcript, live: the brief it got and its call waiting for approval.
    await writer.locator(':scope > summary').click();
    const live = writer.getByTestId('subagent-transcript');
    await poll(() => live.getByTestId('user-message').textContent()).toContain('Check part 1 and report.');
    await poll(() =>
      live.locator('[data-testid="tool-card"][data-tool="write_file"]').getAttribute('data-status'),
    ).toBe('awaiting_approval');
    await page.screenshot({ path: path.join(web.srv.ctx.home, 'subagents-waiting.png') });

    await approval.getByTestId('approve-once').click();
    await poll(() => lastAnswer(page)).toBe('Both sub-agents are done.');
    expect(readFileSync(path.join(web.srv.ctx.work, 'child.txt'), 'utf8')).toBe('from a child\n');
    const cards = page.getByTestId('subagent-card');
    await poll(() =>
      cards.evaluateAll((n) =>
        n.map((c) => (c as unknown as { dataset: { status: string } }).dataset.status),
      ),
    ).toEqual(['done', 'done']);
    await poll(() => writer.getByTestId('subagent-tokens').textContent()).toBe('220 tokens');
    await poll(() => live.getByTestId('assistant-text').last().textContent()).toContain(
      'CHILD ONE: wrote child.txt',
    );
    // The children's text stays in their cards: the session's own answer is the parent's.
    expect(await page.locator(OWN_TEXT).allTextContents()).toEqual(['Both sub-agents are done.\n']);
    // The usage with the sub-agents' share (2 × 110 + 2 × 44 of 312).
    await poll(() => page.locator('#usage').getAttribute('data-subagent-tokens')).toBe('308');
    const shot = path.join(web.srv.ctx.home, 'subagents-done.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot)).toBe(true);

    // After a reload the cards come from the API, closed; opening one loads its transcript.
    await page.reload();
    await page.getByTestId('prompt-input').waitFor();
    await poll(() => page.getByTestId('subagent-card').count()).toBe(2);
    const stored = page.locator('[data-testid="subagent-card"]', {
      has: page.getByTestId('subagent-label').getByText(asker, { exact: true }),
    });
    expect(await stored.getAttribute('data-status')).toBe('done');
    expect(await stored.getByTestId('subagent-tokens').textContent()).toBe('220 tokens');
    expect(await stored.getByTestId('subagent-transcript').locator('.msg').count()).toBe(0);
    await stored.locator(':scope > summary').click();
    const loaded = stored.getByTestId('subagent-transcript');
    await poll(() => loaded.getByTestId('assistant-text').last().textContent()).toContain(
      'CHILD ONE: wrote child.txt',
    );
    expect(
      await loaded.locator('[data-testid="tool-card"][data-tool="write_file"]').getAttribute('data-status'),
    ).toBe('completed');
    expect(await page.locator(OWN_TEXT).allTextContents()).toEqual(['Both sub-agents are done.\n']);
    expect(await page.locator('#session-usage').textContent()).toContain('of which sub-agents 308 tokens');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

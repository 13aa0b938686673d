/**
 * A model call whose stream is cut mid-answer is retried: the web UI drops what the
 * cut attempt showed, so the answer appears once, whole.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { lastAnswer, openApp, poll, sendPrompt } from './browser.js';

const web = useWebApp(['--permission-mode', 'ask'], { retries: 2, resetModel: true });

describe('web UI: a retried stream', () => {
  it('replaces the partial answer of a cut stream with the whole one', async () => {
    const partial = 'The first attempt starts to answer and then the connection drops in the middle';
    web.srv.model.script(
      reply().text(partial).chunkSize(8).cutAfter(4),
      reply().text('The clean answer, whole.'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'answer me');
    await poll(() => lastAnswer(page)).toContain('The clean answer, whole.');
    const texts = await page.getByTestId('assistant-text').allTextContents();
    expect(texts.join('\n')).not.toContain('The first attempt');
    expect(await page.getByText(/Retrying \(attempt 1\)/).count()).toBe(1);
    expect(errors).toEqual([]);
  });
});

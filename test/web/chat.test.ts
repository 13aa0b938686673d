/**
 * The web UI against the real `tea serve` (ask mode) and the scripted model:
 * streaming with a tool card, an approval, stopping a turn, sending an image.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { backgroundOf, lastAnswer, openApp, poll, screenshot, sendPrompt } from './browser.js';

const web = useWebApp(['--permission-mode', 'ask'], { resetModel: true });

/** A 1×1 red PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

describe('web UI: chat', () => {
  it('streams the answer, shows a tool card with its status and result, and counts tokens', async () => {
    writeFileSync(path.join(web.srv.ctx.work, 'hello.txt'), 'hi\n');
    web.srv.model.script(
      reply().toolCall('list_dir', { path: '.' }).usage(120, 10),
      reply()
        .text('Here are the files in your **workspace**: `hello.txt`. All good.')
        .chunkSize(4)
        .chunkDelay(30)
        .usage(200, 20),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'What files are here?');
    await poll(() => page.getByTestId('user-message').textContent()).toBe('What files are here?');

    // Caught mid-stream: part of the answer is on screen while the turn still runs.
    await page.waitForFunction(`(() => {
      const node = document.querySelector('[data-testid=assistant-text]');
      const text = node ? node.textContent : '';
      return text.includes('Here are') && !text.includes('All good') && document.body.dataset.running === 'true';
    })()`);
    expect(await page.getByTestId('stop').isVisible()).toBe(true);

    const answer = page.getByTestId('assistant-text');
    await poll(() => answer.textContent()).toContain('All good.');
    expect(await answer.locator('strong').textContent()).toBe('workspace');
    expect(await answer.locator('code').textContent()).toBe('hello.txt');

    const card = page.locator('[data-testid=tool-card][data-tool=list_dir]');
    await poll(() => card.getAttribute('data-status')).toBe('completed');
    expect(await card.getByTestId('tool-result').textContent()).toContain('hello.txt');
    expect(await card.getByTestId('tool-duration').textContent()).toMatch(/\d+(\.\d+)? (ms|s)/);
    // Collapsed until clicked, then the arguments show.
    expect(await card.getByTestId('tool-args').isVisible()).toBe(false);
    await card.locator('summary').click();
    expect(await card.getByTestId('tool-args').isVisible()).toBe(true);

    await poll(() => page.getByTestId('send').isVisible()).toBe(true);
    const usage = page.getByTestId('usage');
    await poll(() => usage.getAttribute('data-output')).toBe('30');
    expect(await usage.getAttribute('data-input')).toBe('320');
    await screenshot(page, 'stream-and-tool-card');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('asks before writing a file; Allow once runs the tool and the file exists', async () => {
    web.srv.model.script(
      reply().toolCall('write_file', { path: 'notes/hello.md', content: '# Hello from the web\n' }),
      reply().text('Saved **notes/hello.md**.'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Write a hello note');
    const approval = page.getByTestId('approval');
    await approval.waitFor();
    expect(await approval.textContent()).toContain('write_file');
    const card = page.locator('[data-testid=tool-card][data-tool=write_file]');
    expect(await card.getAttribute('data-status')).toBe('awaiting_approval');
    const target = path.join(web.srv.ctx.work, 'notes', 'hello.md');
    expect(existsSync(target)).toBe(false);
    await screenshot(page, 'approval-prompt');

    await approval.getByTestId('approve-once').click();
    await poll(() => card.getAttribute('data-status')).toBe('completed');
    expect(await approval.getByTestId('approval-outcome').textContent()).toBe('Allowed once');
    expect(await approval.getByTestId('approve-reject').isDisabled()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('# Hello from the web\n');
    await poll(() => lastAnswer(page)).toContain('Saved');
    await screenshot(page, 'approval-allowed');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a rejected write: its card goes queued → waiting for approval → denied, never running', async () => {
    web.srv.model.script(
      reply().toolCall('write_file', { path: 'rejected.md', content: 'no\n' }),
      reply().text('Not written.'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    // Every state a tool card shows, in order: each change's old value (changes come in
    // batches, so the value when a batch is read may already be a later one), then the last.
    await page.evaluate(`(() => {
      window.cardStates = [];
      new MutationObserver((records) => {
        for (const r of records) {
          if (r.target.dataset?.testid !== 'tool-card') continue;
          if (window.cardStates.at(-1) !== r.oldValue) window.cardStates.push(r.oldValue);
        }
      }).observe(document.body, { subtree: true, attributes: true, attributeOldValue: true, attributeFilter: ['data-status'] });
    })()`);
    await sendPrompt(page, 'Write a note');
    const approval = page.getByTestId('approval');
    await approval.waitFor();
    await approval.getByTestId('approve-reject').click();
    const card = page.locator('[data-testid=tool-card][data-tool=write_file]');
    await poll(() => card.getAttribute('data-status')).toBe('denied');
    expect(await card.getByTestId('tool-status').textContent()).toBe('denied');
    expect(await card.getByTestId('tool-result').textContent()).toContain('[DENIED] The user rejected');
    const shown = [...((await page.evaluate('window.cardStates')) as string[]), 'denied'];
    expect(shown).toEqual(['pending', 'awaiting_approval', 'denied']);
    expect(existsSync(path.join(web.srv.ctx.work, 'rejected.md'))).toBe(false);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows an edit as a coloured unified diff (approved with Always)', async () => {
    writeFileSync(path.join(web.srv.ctx.work, 'greet.txt'), 'one\ntwo\nthree\n');
    web.srv.model.script(
      reply().toolCall('edit_file', { path: 'greet.txt', old_string: 'two', new_string: 'TWO' }),
      reply().text('Edited.'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Shout the second line');
    await page.getByTestId('approval').getByTestId('approve-always').click();
    const card = page.locator('[data-testid=tool-card][data-tool=edit_file]');
    await poll(() => card.getAttribute('data-status')).toBe('completed');
    expect(readFileSync(path.join(web.srv.ctx.work, 'greet.txt'), 'utf8')).toBe('one\nTWO\nthree\n');
    await card.locator('summary').click();
    const diff = card.getByTestId('diff');
    expect(await diff.locator('.diff-del').allTextContents()).toEqual(['-two']);
    expect(await diff.locator('.diff-add').allTextContents()).toEqual(['+TWO']);
    expect(await diff.locator('.diff-hunk').count()).toBe(1);
    const added = await backgroundOf(diff.locator('.diff-add'));
    expect(added).toMatch(/^rgb/);
    expect(added).not.toBe(await backgroundOf(diff.locator('.diff-ctx')));
    expect(await backgroundOf(diff.locator('.diff-del'))).not.toBe(added);
    expect(await page.getByTestId('approval-outcome').textContent()).toBe('Always allowed');
    await screenshot(page, 'diff');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('sanitizes model Markdown: no script runs, highlighted code stays', async () => {
    web.srv.model.script(
      reply().text(
        'Look <img src="x" onerror="window.__pwned = 1"> <script>window.__pwned = 2</script>' +
          '[click](javascript:window.__pwned=3)\n\n```ts\nconst answer: number = 42;\n```\n',
      ),
    );
    const { page } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Say something risky');
    const answer = page.getByTestId('assistant-text');
    await answer.locator('pre code').waitFor();
    await page.waitForTimeout(50);
    expect(await page.evaluate('window.__pwned === undefined')).toBe(true);
    expect(await answer.locator('script, [onerror]').count()).toBe(0);
    expect(await answer.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await answer.locator('pre code .hljs-keyword').first().textContent()).toBe('const');
    await page.context().close();
  });

  it('answers a question from the model inline and shows its todo list', async () => {
    web.srv.model.script(
      reply().toolCall('todo_write', {
        todos: [
          { content: 'Pick a colour', status: 'in_progress' },
          { content: 'Paint the fence', status: 'pending' },
        ],
      }),
      reply().toolCall('ask_user', { question: 'Which colour?', options: ['Red', 'Blue'] }),
      reply().text('Blue it is.'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Paint the fence');
    const question = page.getByTestId('question');
    await question.waitFor();
    expect(await question.textContent()).toContain('Which colour?');
    expect(await page.getByTestId('plan').textContent()).toContain('Paint the fence');
    await screenshot(page, 'question');
    await question.getByTestId('question-input').fill('Blue, 蓝色');
    await question.getByTestId('question-input').press('Enter');
    await poll(() => lastAnswer(page)).toBe('Blue it is.');
    expect(await question.getByTestId('question-outcome').textContent()).toBe('Answered: Blue, 蓝色');
    expect(JSON.stringify(web.srv.model.requests[2]?.body.messages)).toContain('Blue, 蓝色');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('Stop cancels a running turn and the UI says so', async () => {
    web.srv.model.script(reply().hang());
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Think about this forever');
    const stop = page.getByTestId('stop');
    await stop.waitFor();
    // The scripted model has the request (and never answers) before we stop.
    await poll(() => web.srv.model.requests.length).toBe(1);
    await stop.click();
    const status = page.getByTestId('turn-status');
    await status.waitFor();
    expect(await status.getAttribute('data-reason')).toBe('cancelled');
    expect(await status.textContent()).toContain('Turn cancelled');
    await poll(() => page.getByTestId('send').isVisible()).toBe(true);
    expect(await stop.isVisible()).toBe(false);
    await screenshot(page, 'stopped');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('Esc stops a turn too, and the session takes a new prompt afterwards', async () => {
    web.srv.model.script(reply().hang(), reply().text('Back again.'));
    const { page } = await openApp(web.browser, web.srv.url);
    await sendPrompt(page, 'Hang on');
    await page.getByTestId('stop').waitFor();
    await poll(() => web.srv.model.requests.length).toBe(1);
    await page.keyboard.press('Escape');
    await page.getByTestId('turn-status').waitFor();
    await sendPrompt(page, 'Are you there?');
    await poll(() => lastAnswer(page)).toBe('Back again.');
    await page.context().close();
  });

  it('previews a picked image, sends it with the prompt and shows it in the chat', async () => {
    web.srv.model.script(reply().text('A red pixel.'));
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await page
      .getByTestId('image-input')
      .setInputFiles({ name: 'red.png', mimeType: 'image/png', buffer: PNG });
    await page.getByTestId('image-preview').waitFor();
    await sendPrompt(page, 'What is in this picture?');
    await poll(() => lastAnswer(page)).toBe('A red pixel.');
    expect(await page.getByTestId('image-preview').count()).toBe(0);
    expect(await page.getByTestId('user-message').getByTestId('image-thumb').count()).toBe(1);
    // The model received the image as part of the user's message.
    const sent = JSON.stringify(web.srv.model.requests[0]?.body.messages);
    expect(sent).toContain(PNG.toString('base64'));
    await screenshot(page, 'image-sent');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('Enter while an IME composes does not send; Shift+Enter adds a line', async () => {
    const { page } = await openApp(web.browser, web.srv.url);
    const input = page.getByTestId('prompt-input');
    await input.fill('你好');
    await input.dispatchEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true });
    await input.press('Shift+Enter');
    await input.type('世界');
    expect(await input.inputValue()).toBe('你好\n世界');
    expect(await page.getByTestId('user-message').count()).toBe(0);
    expect(web.srv.model.requests).toHaveLength(0);
    await page.context().close();
  });
});

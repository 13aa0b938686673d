/**
 * The Workflows panel against the real `tea serve` and the scripted model: the
 * workflows with a start form for their inputs, a run's nodes live from its event
 * stream (an agent node's session link while it runs), approve, the output, the
 * session opened in the chat; cancel, resume, reject and fork from the run view; on
 * a phone, the panel opened from the session list.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { lastUserText, tagOf } from '../multi/workflow/helpers.js';
import { reply } from '../support/script.js';
import { useWebApp } from './app.js';
import { openApp, poll } from './browser.js';

const web = useWebApp(['--permission-mode', 'ask'], { resetModel: true });

const GATED = `name: gated
description: plan, ask, apply
input:
  topic: { type: string, description: "what to plan" }
  rounds: { type: integer, default: 2 }
state: { plan: string, result: string }
nodes:
  plan: { kind: agent, role: analyst, prompt: "[plan] {{input.topic}} x{{input.rounds}}", output: plan, next: ok }
  ok: { kind: wait, approval: "Apply {{state.plan}}?", next: apply }
  apply: { kind: agent, role: coder, prompt: "[apply]", output: result, next: done }
  done: { kind: end, result: "{{state.result}}" }
`;

beforeAll(() => {
  const dir = path.join(web.srv.ctx.work, '.tea', 'workflows');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'gated.yaml'), GATED);
});

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(web.srv.ctx.home, `${name}.png`) });

/** Opens the panel and starts `gated` on `topic` from its form. */
async function startGated(page: Page, topic: string): Promise<void> {
  await page.getByTestId('workflows-toggle').click();
  const item = page.locator('[data-testid="workflow-item"][data-name="gated"]');
  await item.locator('summary').click();
  await item.getByTestId('workflow-input-topic').fill(topic);
  await item.getByTestId('workflow-start').click();
  await page.getByTestId('run-view').waitFor();
}

const node = (page: Page, key: string) => page.locator(`[data-testid="run-node"][data-key="${key}"]`);
const status = (page: Page) => page.getByTestId('run-status').textContent();

describe('web UI: workflows', () => {
  it('starts a workflow from its form, shows its nodes live, approves, opens an agent node’s session', async () => {
    web.srv.model.respond((body) =>
      tagOf(body) === 'plan' ? reply().text('P1').holdUntil('plan') : reply().text('applied'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await page.getByTestId('workflows-toggle').click();
    const panel = page.getByTestId('workflows-panel');
    await panel.waitFor();
    expect(await page.getByTestId('workflows-toggle').getAttribute('aria-expanded')).toBe('true');
    // The built-in flows and the project's own, each with its inputs.
    await poll(() => panel.getByTestId('workflow-item').count()).toBeGreaterThanOrEqual(7);
    const gated = panel.locator('[data-testid="workflow-item"][data-name="gated"]');
    expect(await gated.locator('summary').textContent()).toBe('gatedprojectplan, ask, apply');
    await gated.locator('summary').click();
    expect(await gated.getByTestId('workflow-input-rounds').inputValue()).toBe('2');
    expect(await gated.locator('.hint').first().textContent()).toBe('what to plan');
    // A required input left empty is caught before any request.
    await gated.getByTestId('workflow-start').click();
    expect(await gated.getByTestId('workflow-form-error').textContent()).toBe('topic is required');
    await gated.getByTestId('workflow-input-topic').fill('the garden');
    await gated.getByTestId('workflow-input-rounds').fill('3');
    await shot(page, 'workflows-form');
    await gated.getByTestId('workflow-start').click();

    // The run, live: its agent node runs, with its session linked before it ends.
    await page.getByTestId('run-view').waitFor();
    await poll(() => status(page)).toBe('running');
    await poll(() => node(page, 'plan').getAttribute('data-status')).toBe('running');
    await node(page, 'plan').getByTestId('run-node-session').waitFor();
    await shot(page, 'workflows-running');
    expect(lastUserText(web.srv.model.requests[0]!.body)).toBe('[plan] the garden x3');
    web.srv.model.release('plan');

    // It waits for approval: the question, then Approve.
    const approval = page.getByTestId('run-approval');
    await approval.waitFor();
    expect(await approval.locator('.run-question').textContent()).toBe('Apply P1?');
    expect(await status(page)).toBe('waiting');
    expect(await node(page, 'ok').getAttribute('data-status')).toBe('waiting');
    await shot(page, 'workflows-waiting');
    await approval.getByTestId('run-approve').click();
    await poll(() => status(page)).toBe('completed');
    expect(await page.getByTestId('run-output').textContent()).toBe('applied');
    await poll(() =>
      page
        .getByTestId('run-node')
        .evaluateAll((n) => n.map((x) => (x as unknown as { dataset: Record<string, string> }).dataset.key)),
    ).toEqual(['plan', 'ok', 'apply', 'done']);
    for (const key of ['plan', 'ok', 'apply', 'done'])
      expect(await node(page, key).getAttribute('data-status')).toBe('completed');
    expect(await page.getByTestId('run-graph').textContent()).toMatch(/^flowchart TD\n/);
    await shot(page, 'workflows-completed');

    // The agent node's session opens in the chat.
    await node(page, 'apply').getByTestId('run-node-session').click();
    await poll(() => page.getByTestId('session-title').textContent()).toMatch(/apply \(coder\)$/);
    await poll(() => page.getByTestId('assistant-text').last().textContent()).toContain('applied');

    // Back to the lists: the run is there, completed.
    await page.getByTestId('run-back').click();
    const item = page.getByTestId('run-item').first();
    await poll(() => item.getAttribute('data-status')).toBe('completed');
    expect(await item.locator('.run-name').textContent()).toBe('gated');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('cancels, resumes, rejects and forks from the run view', async () => {
    web.srv.model.respond((body) =>
      tagOf(body) === 'plan' ? reply().text('never').holdUntil('never') : reply().text('x'),
    );
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await startGated(page, 'bikes');
    await poll(() => node(page, 'plan').getAttribute('data-status')).toBe('running');
    await page.getByTestId('run-cancel').click();
    await poll(() => status(page)).toBe('cancelled');
    const first = (await page.getByTestId('run-view').locator('.run-id').getAttribute('title'))!;

    // Resumed: the interrupted node runs again, then the run waits; a rejection fails it.
    web.srv.model.respond((body) => reply().text(tagOf(body) === 'plan' ? 'P2' : 'applied'));
    await page.getByTestId('run-resume').click();
    await poll(() => status(page)).toBe('waiting');
    expect(await node(page, 'plan').locator('.run-node-kind').textContent()).toContain('2 tries');
    await page.getByTestId('run-reject').click();
    await poll(() => status(page)).toBe('failed');
    expect(await page.getByTestId('run-error').textContent()).toBe(
      'node "ok" (wait) failed: rejected by the user: Apply P2?',
    );

    // Forked after the plan: a new run asks again, and this time it is approved.
    const select = page.getByTestId('run-fork-select');
    const afterPlan = await select.locator('option', { hasText: 'after plan' }).getAttribute('value');
    await select.selectOption(afterPlan!);
    await page.getByTestId('run-fork').click();
    await poll(async () => page.getByTestId('run-view').locator('.run-id').getAttribute('title')).not.toBe(
      first,
    );
    await poll(() => status(page)).toBe('waiting');
    expect(await page.locator('.run-meta').textContent()).toContain(`forked from ${first.slice(0, 8)}`);
    await page.getByTestId('run-approve').click();
    await poll(() => status(page)).toBe('completed');
    await shot(page, 'workflows-forked');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('on a phone: opened from the session list, a run’s agent session opens in the chat, the panel making way', async () => {
    const { page, errors } = await openApp(web.browser, web.srv.url, { width: 375, height: 740 });
    await page.getByTestId('sidebar-toggle').click();
    await page.getByTestId('workflows-toggle').click();
    await page.getByTestId('workflows-panel').waitFor();
    await poll(() => page.locator('body').getAttribute('class')).not.toContain('sidebar-open');
    const done = page.locator('[data-testid="run-item"][data-status="completed"]').first();
    await done.click();
    await poll(() => status(page)).toBe('completed');
    await shot(page, 'workflows-phone');
    await node(page, 'plan').getByTestId('run-node-session').click();
    await page.locator('#drawer').waitFor({ state: 'hidden' });
    await poll(() => page.getByTestId('session-title').textContent()).toMatch(/plan \(analyst\)$/);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

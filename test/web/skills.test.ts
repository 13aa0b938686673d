/**
 * The Skills panel against the real `tea serve`: installed skills with their source
 * and precedence, the shadowed one and the problems found; a skill's instructions;
 * removing one (another agent's folder asks for "Remove anyway", then the shadowed
 * skill takes over); the Inbox: view, accept, replace a taken name, reject an invalid
 * draft (which cannot be accepted).
 */
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { skillText } from '../support/skills.js';
import { useWebApp } from './app.js';
import { openApp, poll, screenshot } from './browser.js';

const web = useWebApp();
const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'skills', 'csv-report');

function writeSkill(dir: string, name: string, description: string, extra = ''): void {
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(
    path.join(dir, name, 'SKILL.md'),
    skillText({ name, description, extra, body: `# ${name} steps\n\nDo it.\n` }),
  );
}

beforeAll(() => {
  const { home, work } = web.srv.ctx;
  cpSync(FIXTURE, path.join(work, '.claude', 'skills', 'csv-report'), { recursive: true });
  writeSkill(
    path.join(path.dirname(home), '.claude', 'skills'),
    'csv-report',
    'An older copy in Claude Code’s folder.',
  );
  writeSkill(path.join(home, 'skills'), 'notes', 'Take meeting notes.');
  writeSkill(path.join(home, 'skills'), 'Broken', 'A bad name.');
  const meta =
    'metadata:\n  source: tea-draft\n  session: 5e55101d-0000\n  drafted_at: "2026-12-01T09:30:00Z"\n';
  const inbox = path.join(home, 'skill-inbox');
  writeSkill(inbox, 'deploy-app', 'Deploy the app to staging: build, migrate, smoke-test.', meta);
  writeSkill(inbox, 'notes', 'Better meeting notes, with action items.', meta);
  mkdirSync(path.join(inbox, 'half-done'));
  writeFileSync(path.join(inbox, 'half-done', 'SKILL.md'), 'no frontmatter yet');
});

const item = (page: Page, testid: string, name: string, rank?: number) =>
  page.locator(`[data-testid="${testid}"][data-name="${name}"]${rank ? `[data-rank="${rank}"]` : ''}`);

describe('web UI: skills', () => {
  it('lists, views and removes installed skills; the inbox views, accepts, replaces and rejects drafts', async () => {
    const { page, errors } = await openApp(web.browser, web.srv.url);
    await page.getByTestId('skills-toggle').click();
    const panel = page.getByTestId('skills-panel');
    await panel.waitFor();
    expect(await page.getByTestId('skills-toggle').getAttribute('aria-expanded')).toBe('true');
    await poll(() => panel.getByTestId('skill-item').count()).toBe(3);
    expect(await item(page, 'skill-item', 'csv-report', 3).getByTestId('skill-source').textContent()).toBe(
      '3 · .claude/skills',
    );
    expect(await item(page, 'skill-item', 'csv-report', 6).textContent()).toContain('shadowed');
    expect(await item(page, 'skill-item', 'notes', 4).textContent()).toContain('Take meeting notes.');
    const problems = await panel.getByTestId('skill-problem').allTextContents();
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toMatch(/Broken\/SKILL\.md: name: expected .*Fix: rename it/);
    expect(problems.join('\n')).toMatch(/the skill "csv-report" is shadowed by/);
    expect(await panel.getByTestId('skill-order').textContent()).toMatch(
      /^Folders, first wins: 1 \.tea\/skills · 2 \.agents\/skills · 3 \.claude\/skills/,
    );
    expect(await panel.getByTestId('skills-inbox-count').textContent()).toBe('3');

    const csv = item(page, 'skill-item', 'csv-report', 3);
    await csv.getByTestId('skill-view').click();
    await poll(() => csv.getByTestId('skill-body').locator('h1').textContent()).toBe('CSV report');
    expect(await csv.getByTestId('skill-detail').textContent()).toContain(
      'Files: LICENSE.txt, references/REFERENCE.md, scripts/summarize.mjs',
    );
    await screenshot(page, 'skills-installed');

    // Another agent's folder: two clicks, then the forced removal it offers.
    await csv.getByTestId('skill-remove').click();
    expect(await csv.getByTestId('skill-remove').textContent()).toBe('Remove?');
    await csv.getByTestId('skill-remove').click();
    await poll(() => csv.getByTestId('skill-remove-note').textContent()).toMatch(
      /another agent's skills folder/,
    );
    await csv.getByTestId('skill-remove-force').click();
    await poll(() => item(page, 'skill-item', 'csv-report', 3).count()).toBe(0);
    expect(existsSync(path.join(web.srv.ctx.work, '.claude', 'skills', 'csv-report'))).toBe(false);
    // The copy that was shadowed is the skill now.
    expect(await item(page, 'skill-item', 'csv-report', 6).textContent()).not.toContain('shadowed');

    await page.getByTestId('skills-tab-inbox').click();
    expect(await page.getByTestId('skills-tab-inbox').getAttribute('aria-selected')).toBe('true');
    const deploy = item(page, 'draft-item', 'deploy-app');
    await deploy.waitFor();
    expect(await deploy.textContent()).toContain('drafted 2026-12-01 09:30');
    expect(await deploy.textContent()).toContain('From session 5e55101d');
    await deploy.getByTestId('draft-view').click();
    await poll(() => deploy.getByTestId('draft-body').textContent()).toContain('deploy-app steps');
    await deploy.getByTestId('draft-accept').click();
    await poll(() => deploy.count()).toBe(0);
    expect(existsSync(path.join(web.srv.ctx.home, 'skills', 'deploy-app', 'SKILL.md'))).toBe(true);

    const notes = item(page, 'draft-item', 'notes');
    await notes.getByTestId('draft-accept').click();
    await poll(() => notes.getByTestId('draft-accept-note').textContent()).toMatch(/already installed/);
    await notes.getByTestId('draft-accept-force').click();
    await poll(() => notes.count()).toBe(0);

    const half = item(page, 'draft-item', 'half-done');
    expect(await half.getByTestId('draft-accept').isDisabled()).toBe(true);
    expect(await half.getByTestId('draft-problem').textContent()).toMatch(/\(frontmatter\)/);
    await screenshot(page, 'skills-inbox');
    await half.getByTestId('draft-reject').click();
    await half.getByTestId('draft-reject').click();
    await poll(() => page.getByTestId('draft-item').count()).toBe(0);
    expect(await page.getByTestId('skills-inbox-count').textContent()).toBe('');

    await page.getByTestId('skills-tab-installed').click();
    await poll(() => panel.getByTestId('skill-item').count()).toBe(3);
    expect(await item(page, 'skill-item', 'notes', 4).textContent()).toContain('Better meeting notes');
    // The two 409s the panel answered with its forced actions are the only failed requests.
    expect(errors.filter((e) => !e.includes('status of 409 (Conflict)'))).toEqual([]);
    expect(errors).toHaveLength(2);
  });
});

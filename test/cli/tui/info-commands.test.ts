/**
 * /help, /tools, /memory, /skills, /cost, /config, /clear and /quit against a real
 * runtime (temp home, real SQLite, the scripted model server) with a recording host.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/agent/index.js';
import { builtinCommands, loadCommands } from '../../../src/cli/tui/commands/index.js';
import { isChild, isFirstCall, task } from '../../multi/helpers.js';
import { reply } from '../../support/script.js';
import { useModelServer } from '../../support/use-model-server.js';
import { run, useWorkspace } from './test-host.js';

const model = useModelServer();
const workspace = useWorkspace(model);
const commands = builtinCommands();

/** Runs a turn, allowing every approval once. */
async function turn(session: Session, text: string): Promise<void> {
  for await (const e of session.prompt(text))
    if (e.type === 'approval_request') session.approve(e.requestId, 'once');
}

const BUILTIN = [
  'help',
  'new',
  'sessions',
  'resume',
  'fork',
  'model',
  'profile',
  'compact',
  'memory',
  'tools',
  'mcp',
  'skills',
  'export',
  'cost',
  'config',
  'clear',
  'quit',
];

describe('/help', () => {
  it('lists every built-in command with its hint, the user commands apart, and the keys', async () => {
    const { host, work } = await workspace();
    mkdirSync(path.join(work, '.tea', 'commands'), { recursive: true });
    writeFileSync(
      path.join(work, '.tea', 'commands', 'review.md'),
      '---\ndescription: Review a PR\nargument-hint: <pr>\n---\nReview $1',
    );
    const all = await loadCommands(host);
    expect(all.map((c) => c.name)).toEqual([...BUILTIN, 'review']);
    await run(all, host, '/help');
    const help = host.last;
    expect(help.markdown).toBeFalsy();
    for (const name of BUILTIN) expect(help.text).toContain(`/${name}`);
    expect(help.text).toMatch(/^ {2}\/resume \[id-prefix\] +Switch to a session/m);
    expect(help.text).toContain('/quit, /exit');
    expect(help.text.indexOf('Your commands')).toBeLessThan(help.text.indexOf('/review <pr>'));
    expect(help.text).toMatch(/\/review <pr> +Review a PR/);
    // One line per command: no table rules between rows.
    expect(help.text).not.toContain('---');
    expect(help.text).toContain('Alt+Enter');
  });
});

describe('/tools, /memory, /skills', () => {
  it('/tools lists by category, filters by one, and names the categories for an unknown one', async () => {
    const { host } = await workspace();
    await run(commands, host, '/tools');
    expect(host.last.text).toMatch(/\*\*files\*\*[\s\S]*`read_file`/);
    await run(commands, host, '/tools files');
    expect(host.last.text).toContain('`read_file`');
    expect(host.last.text).not.toContain('`bash`');
    await run(commands, host, '/tools filez');
    expect(host.last).toMatchObject({ tone: 'error', text: expect.stringContaining('did you mean files') });
    const complete = await commands.find((c) => c.name === 'tools')!.complete!('fi', host);
    expect(complete.map((i) => i.value)).toEqual(['files']);
  });

  it('/memory lists this workspace’s memories and searches them', async () => {
    const { rt, host, work } = await workspace();
    await run(commands, host, '/memory');
    expect(host.last.text).toBe('No memories yet.');
    await rt.memory.remember({
      content: 'The user prefers tabs over spaces',
      category: 'preference',
      scope: 'user',
    });
    await rt.memory.remember({
      content: 'Other project uses pnpm',
      category: 'fact',
      scope: `project:${work}-other`,
    });
    await run(commands, host, '/memory');
    expect(host.last.text).toContain('[preference] The user prefers tabs over spaces');
    expect(host.last.text).not.toContain('pnpm');
    await run(commands, host, '/memory tabs');
    expect(host.last.text).toMatch(/matching "tabs"[\s\S]*prefers tabs/);
  });

  it('/skills with none installed says where one goes; once one is, lists it', async () => {
    const { host } = await workspace();
    const skills = commands.find((c) => c.name === 'skills')!;
    expect(skills.available).toBeUndefined();
    await run(commands, host, '/skills');
    expect(host.last).toMatchObject({ tone: 'dim', text: expect.stringContaining('.tea/skills') });
    expect(host.last.text).toContain('~/.tea/skills');
    const later = await workspace(); // a home with a skill, written before the runtime reads the folder
    const dir2 = path.join(later.home, 'skills', 'pdf-tools');
    mkdirSync(dir2, { recursive: true });
    writeFileSync(
      path.join(dir2, 'SKILL.md'),
      '---\nname: pdf-tools\ndescription: Work with PDF files\n---\nUse pdftotext.\n',
    );
    await run(commands, later.host, '/skills');
    expect(later.host.last.text).toContain('**pdf-tools**');
    expect(later.host.last.text).toContain('Work with PDF files');
  });
});

describe('/cost and /config', () => {
  it('/cost: by model, sub-agents’ calls included and counted apart', async () => {
    // Prices per million tokens: other-model's 1000 in + 100 out cost $1.00 + $2.00.
    const { host } = await workspace('models: { other-model: { input_price: 1000, output_price: 20000 } }');
    await run(commands, host, '/cost');
    expect(host.last.text).toBe('No model calls in this session yet.');
    model().respond((body) => {
      if (isChild(body)) return reply().text('child done').usage(200, 20);
      if (isFirstCall(body)) return reply().toolCall('task', task(1)).usage(50, 5);
      return reply().text('done').usage(60, 6);
    });
    await turn(host.session(), 'delegate');
    model().respond(undefined);
    await run(commands, host, '/profile other');
    model().script(reply().text('other answer').usage(1000, 100));
    await turn(host.session(), 'again');
    await run(commands, host, '/cost');
    const text = host.last.text;
    expect(text).toMatch(/\| scripted-model \(1 by sub-agents\) \| 3 \| 310 \| 0 \| 31 \|/);
    expect(text).toContain('| other-model | 1 | 1.0k | 0 | 100 | $3.00 |');
    expect(text).toContain('| **total** | 4 | 1.3k | 0 | 131 | **$3.00** |');
    expect(text).toContain('Sub-agents: 1 sub-agent, 1 call');
  });

  it('/config shows the effective config with the key masked and the files it came from', async () => {
    const { host, home } = await workspace();
    await run(commands, host, '/config');
    const text = host.last.text;
    expect(text).toContain(path.join(home, 'config.yaml'));
    expect(text).toContain('scripted-model');
    expect(text).not.toContain('sk-test-0123456789abcdefghij');
    expect(text).toContain('sk-…ghij');
  });
});

describe('/clear and /quit', () => {
  it('clear empties the screen; quit and exit leave, even while a turn runs', async () => {
    const { host } = await workspace();
    host.running = true;
    for (const name of ['clear', 'quit']) expect(commands.find((c) => c.name === name)!.whileBusy).toBe(true);
    await run(commands, host, '/clear');
    await run(commands, host, '/quit');
    await run(commands, host, '/exit');
    expect([host.cleared, host.exited]).toEqual([1, 2]);
  });
});

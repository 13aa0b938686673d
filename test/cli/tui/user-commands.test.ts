/** User commands in the terminal UI: loaded with the built-in ones, run by submitting their expansion. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isUserCommand, loadCommands } from '../../../src/cli/tui/commands/index.js';
import { useModelServer } from '../../support/use-model-server.js';
import { run, useWorkspace } from './test-host.js';

const model = useModelServer();
const workspace = useWorkspace(model);

describe('user commands in the TUI', () => {
  it('runs a project command by submitting its expanded template; the project’s wins over the home’s', async () => {
    const { host, work, home } = await workspace();
    mkdirSync(path.join(work, '.tea', 'commands', 'git'), { recursive: true });
    mkdirSync(path.join(home, 'commands'), { recursive: true });
    writeFileSync(
      path.join(work, '.tea', 'commands', 'fix.md'),
      '---\nargument-hint: <issue>\n---\nFix issue #$1 ($ARGUMENTS)',
    );
    writeFileSync(path.join(work, '.tea', 'commands', 'git', 'commit.md'), 'Commit with message: $ARGUMENTS');
    writeFileSync(path.join(home, 'commands', 'fix.md'), 'the home one');
    writeFileSync(path.join(home, 'commands', 'explain.md'), 'Explain $ARGUMENTS simply');
    const commands = await loadCommands(host);
    const user = commands.filter(isUserCommand);
    expect(user.map((c) => c.name)).toEqual(['explain', 'fix', 'git:commit']);
    expect(user.find((c) => c.name === 'fix')?.argumentHint).toBe('<issue>');
    await run(commands, host, '/fix 12 urgent');
    await run(commands, host, '/git:commit tidy up');
    await run(commands, host, '/explain $ARGUMENTS');
    expect(host.submitted).toEqual([
      'Fix issue #12 (12 urgent)',
      'Commit with message: tidy up',
      'Explain $ARGUMENTS simply',
    ]);
    expect(host.printed).toEqual([]);
    // Nothing went to the model: the screen sends what was submitted.
    expect(model().requests).toHaveLength(0);
  });

  it('a file named like a built-in command is hidden, said once; a bad file is skipped with its fix', async () => {
    const { host, work } = await workspace();
    const dir = path.join(work, '.tea', 'commands');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'export.md'), 'my export');
    writeFileSync(path.join(dir, 'exit.md'), 'my exit (an alias of /quit)');
    writeFileSync(path.join(dir, 'bad name.md'), 'x');
    const commands = await loadCommands(host);
    expect(commands.filter(isUserCommand)).toEqual([]);
    expect(commands.filter((c) => c.name === 'export')).toHaveLength(1);
    const warnings = host.printed.filter((p) => p.tone === 'error').map((p) => p.text);
    expect(warnings).toHaveLength(3);
    expect(warnings.filter((w) => w.includes('export.md is hidden by the built-in /export'))).toHaveLength(1);
    expect(warnings.filter((w) => w.includes('exit.md is hidden by the built-in /exit'))).toHaveLength(1);
    expect(warnings.some((w) => w.includes('bad name.md skipped') && w.includes('letters, digits'))).toBe(
      true,
    );
  });
});

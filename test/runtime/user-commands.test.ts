/**
 * User commands (`.tea/commands/*.md`, `TEA_HOME/commands/*.md`): parsing, expansion,
 * precedence, and a break-in table of files that must be skipped with one warning each.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  expandUserCommand,
  loadUserCommands,
  MAX_COMMAND_BYTES,
  matchUserCommand,
  splitArguments,
  type UserCommand,
} from '../../src/runtime/user-commands.js';
import { useTempDirs } from '../store/helpers.js';

const tempDir = useTempDirs();

/** A workspace and a home, with `files` (relative to either: `project/...` or `user/...`). */
function setup(files: Record<string, string | Buffer>): { cwd: string; home: string } {
  const root = tempDir();
  const cwd = path.join(root, 'work');
  const home = path.join(root, 'home');
  for (const [rel, body] of Object.entries(files)) {
    const [scope, ...rest] = rel.split('/');
    const base = scope === 'project' ? path.join(cwd, '.tea', 'commands') : path.join(home, 'commands');
    const file = path.join(base, ...rest);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, body);
  }
  mkdirSync(path.join(cwd, '.tea', 'commands'), { recursive: true });
  mkdirSync(path.join(home, 'commands'), { recursive: true });
  return { cwd, home };
}

async function load(
  dirs: { cwd: string; home: string },
  reserved: string[] = [],
): Promise<{ commands: UserCommand[]; warnings: string[] }> {
  const warnings: string[] = [];
  const commands = await loadUserCommands({ ...dirs, reserved, warn: (m) => warnings.push(m) });
  return { commands, warnings };
}

describe('expandUserCommand', () => {
  const table: Array<[string, string, string, string]> = [
    ['all arguments', 'Fix $ARGUMENTS now', 'issue 12', 'Fix issue 12 now'],
    ['positional', 'From $1 to $2', 'a.ts b.ts', 'From a.ts to b.ts'],
    ['quoted positional', 'Title: $1; body: $2', '"two words" rest', 'Title: two words; body: rest'],
    ['missing positional is empty', 'A=$1 B=$2.', 'only', 'A=only B=.'],
    [
      '$ARGUMENTS inside the arguments is not expanded again',
      'Say $ARGUMENTS',
      '$ARGUMENTS $1',
      'Say $ARGUMENTS $1',
    ],
    ['$1 bringing $2 is not expanded again', '$1|$2', '$2 x', '$2|x'],
    ['no placeholder: arguments appended', 'Review the diff.', 'carefully', 'Review the diff.\n\ncarefully'],
    ['no placeholder, no arguments', 'Review the diff.', '', 'Review the diff.'],
    ['$10 is $1 then 0', '$10', 'a', 'a0'],
    ['Chinese arguments', '翻译：$ARGUMENTS', '你好 世界', '翻译：你好 世界'],
    ['dollar signs in arguments stay', 'Run $1', "$(rm -rf /) '$HOME'", 'Run $(rm'],
  ];
  for (const [what, body, args, want] of table)
    it(what, () => {
      expect(expandUserCommand(body, args)).toBe(want);
    });

  it('splits arguments on white space, keeping quoted ones whole', () => {
    expect(splitArguments(` a  "b c" 'd e' f\tg `)).toEqual(['a', 'b c', 'd e', 'f', 'g']);
  });
});

describe('matchUserCommand', () => {
  const commands = [
    { name: 'review', body: 'R $ARGUMENTS' },
    { name: 'git:commit', body: 'C' },
    { name: '翻译', body: 'T' },
  ] as UserCommand[];
  it.each([
    ['/review 12', 'review', '12'],
    ['/REVIEW', 'review', ''],
    ['/git:commit -m x', 'git:commit', '-m x'],
    ['/翻译 你好', '翻译', '你好'],
    ['/review\nmore lines\nhere', 'review', 'more lines\nhere'],
  ])('%s', (text, name, args) => {
    expect(matchUserCommand(text, commands)).toMatchObject({ command: { name }, args });
  });
  it.each(['/reviews', 'review 12', '/etc/passwd', ' /nope', '/'])('not %s', (text) => {
    expect(matchUserCommand(text, commands)).toBeUndefined();
  });
});

describe('loadUserCommands', () => {
  it('reads frontmatter, subfolders as folder:name, CRLF files and Chinese names; project wins over user', async () => {
    const dirs = setup({
      'project/review.md':
        '---\r\ndescription: Review a PR\r\nargument-hint: <pr number>\r\n---\r\nReview PR $1.\r\nBe strict.\r\n',
      'project/git/commit.md': '# Commit the staged changes\n\nWrite a message for $ARGUMENTS',
      'project/翻译.md': '把下面的话翻译成英文：$ARGUMENTS',
      'user/review.md': 'the user one, hidden by the project one',
      'user/plain.md': 'Just a body.',
    });
    const { commands, warnings } = await load(dirs);
    expect(warnings).toEqual([]);
    const by = Object.fromEntries(commands.map((c) => [c.name, c]));
    expect(Object.keys(by).sort()).toEqual(['git:commit', 'plain', 'review', '翻译']);
    expect(by.review).toMatchObject({
      description: 'Review a PR',
      argumentHint: '<pr number>',
      scope: 'project',
      body: 'Review PR $1.\nBe strict.',
    });
    expect(by['git:commit']).toMatchObject({ description: 'Commit the staged changes', scope: 'project' });
    expect(by.plain).toMatchObject({ description: 'Just a body.', scope: 'user' });
    expect(expandUserCommand(by.review!.body, '42')).toBe('Review PR 42.\nBe strict.');
  });

  it('a built-in name wins: the file is hidden with one warning naming it and the fix', async () => {
    const dirs = setup({ 'project/help.md': 'my help', 'user/help.md': 'mine too' });
    const { commands, warnings } = await load(dirs, ['help', 'exit']);
    expect(commands).toEqual([]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/help\.md is hidden by the built-in \/help; rename the file/);
  });

  it('break-in table: each bad file is skipped with one warning naming it and the fix', async () => {
    const root = tempDir();
    const secret = path.join(root, 'secret.md');
    writeFileSync(secret, 'the secret');
    mkdirSync(path.join(root, 'elsewhere'));
    writeFileSync(path.join(root, 'elsewhere', 'x.md'), 'x');
    const dirs = setup({
      'project/..md': 'dots',
      'project/a..b.md': 'dots inside',
      'project/with space.md': 'space',
      'project/.hidden.md': 'hidden',
      'project/huge.md': 'x'.repeat(MAX_COMMAND_BYTES + 1),
      'project/nul.md': Buffer.from('before\u0000after'),
      'project/empty.md': '---\ndescription: nothing\n---\n',
      'project/badyaml.md': '---\ndescription: [unclosed\n---\nbody',
      'project/badtype.md': '---\ndescription: [a, b]\n---\nbody',
      'project/unclosed.md': '---\ndescription: x\nbody with no closing fence',
      'project/a/b/c/d/deep.md': 'four folders deep',
      'project/a/b/c/ok3.md': 'three folders deep is fine',
      'project/ok.md': 'fine',
    });
    const folder = path.join(dirs.cwd, '.tea', 'commands');
    symlinkSync(secret, path.join(folder, 'leak.md'));
    symlinkSync(path.join(root, 'elsewhere'), path.join(folder, 'outdir'));
    symlinkSync(path.join(folder, 'ok.md'), path.join(folder, 'alias.md')); // inside: allowed
    symlinkSync(path.join(folder, 'gone.md'), path.join(folder, 'dangling.md'));
    const { commands, warnings } = await load(dirs);
    expect(commands.map((c) => c.name).sort()).toEqual(['a:b:c:ok3', 'alias', 'ok']);
    const expectWarning = (file: string, why: RegExp): void => {
      const hits = warnings.filter((w) => w.includes(path.join(folder, file)));
      expect(hits, file).toHaveLength(1);
      expect(hits[0], file).toMatch(why);
    };
    expectWarning('..md', /not a command name; name files/);
    expectWarning('a..b.md', /not a command name/);
    expectWarning('with space.md', /not a command name/);
    expectWarning('.hidden.md', /not a command name/);
    expectWarning('huge.md', /more than 65536; keep a prompt template short/);
    expectWarning('nul.md', /NUL bytes.*save it as UTF-8 text/);
    expectWarning('empty.md', /body is empty/);
    expectWarning('badyaml.md', /frontmatter is not valid YAML .*correct the YAML/);
    expectWarning('badtype.md', /`description` is not text/);
    expectWarning('unclosed.md', /closing `---`/);
    expectWarning('a/b/c/d', /at most 3 folders deep/);
    expectWarning('leak.md', /is a link to .*secret\.md, outside/);
    expectWarning('outdir', /is a link to .*elsewhere, outside/);
    expect(warnings.join('\n')).not.toContain('the secret');
    expect(warnings).toHaveLength(13);
  });

  it('missing folders are no error', async () => {
    const root = tempDir();
    expect(await load({ cwd: path.join(root, 'none'), home: path.join(root, 'nohome') })).toEqual({
      commands: [],
      warnings: [],
    });
  });
});

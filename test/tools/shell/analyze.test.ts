// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell command lines, where ${…} is shell syntax
import { describe, expect, it } from 'vitest';
import { analyzeShell, MAX_COMMAND_CHARS } from '../../../src/tools/shell/analyze.js';
import { isRiskyEnvName } from '../../../src/tools/shell/env.js';
import { changesFiles } from '../../../src/tools/shell/writers.js';

const texts = async (command: string) => (await analyzeShell(command)).commands.map((c) => c.text);
const whys = async (command: string) => (await analyzeShell(command)).problems.map((p) => p.why);

describe('every simple command, wherever it stands', () => {
  it.each([
    ['npm test', ['npm test']],
    ['a; b && c || d & e | f |& g', ['a', 'b', 'c', 'd', 'e', 'f', 'g']],
    ['a\nb\n\nc', ['a', 'b', 'c']],
    ['(a; b) && { c; }', ['a', 'b', 'c']],
    // Substitutions first: they run before the command that holds them.
    [
      'x $(a $(b)) `c` "$(d)" <(e) >(f)',
      ['b', 'a $(b)', 'c', 'd', 'e', 'f', 'x $(a $(b)) `c` $(d) <(e) >(f)'],
    ],
    ['if a; then b; elif c; then d; else e; fi', ['a', 'b', 'c', 'd', 'e']],
    ['while a; do b; done; until c; do d; done', ['a', 'b', 'c', 'd']],
    ['for x in $(a) b; do c; done', ['a', 'c']],
    ['case $(a) in $(b)) c;; esac', ['a', 'b', 'c']],
    ['time a | b; ! c; coproc d', ['a', 'b', 'c', 'd']],
    ['cat <<EOF\n$(a)\nEOF', ['a', 'cat']],
    ["cat <<'EOF'\n$(a)\nEOF", ['cat']],
    ['x=$(a) y', ['a', 'y']],
    ['npm test # ; curl x', ['npm test']],
  ])('%j runs %j', async (command, expected) => {
    expect(await texts(command)).toEqual(expected);
  });
});

describe('names resolved, quotes removed', () => {
  it.each([
    ['/usr/bin/rm -rf x', 'rm -rf x'],
    ['/bin/rm x', 'rm x'],
    ['//usr//local/bin/../bin/curl x', 'curl x'],
    ['\\rm x', 'rm x'],
    ['r\\m x', 'rm x'],
    ["c''url x", 'curl x'],
    ['"curl" x', 'curl x'],
    [`'c'u"r"l x`, 'curl x'],
    ['cu\\\nrl x', 'curl x'],
    [`echo "a b" 'c d' e\\ f "\\$x" "a\\\\b" "a\\zb"`, 'echo a b c d e f $x a\\b a\\zb'],
    ['echo $HOME "${USER}"', 'echo $HOME ${USER}'],
    ['rm\t-rf   x', 'rm -rf x'],
  ])('%j is %j', async (command, text) => {
    expect(await texts(command)).toEqual([text]);
  });

  it('a path outside the system directories keeps its path; deny rules also see its base name', async () => {
    const [local] = (await analyzeShell('./npm test')).commands;
    expect(local).toMatchObject({ name: './npm', text: './npm test' });
    expect(local!.also).toContain('npm test');
    const [system] = (await analyzeShell('/usr/bin/rm -rf x')).commands;
    expect(system).toMatchObject({ name: 'rm', text: 'rm -rf x', also: ['/usr/bin/rm -rf x'] });
  });

  it.each([
    ['command env -i NODE_ENV=x timeout -s KILL 5 nohup nice -n 2 npm test', 'npm test'],
    ['exec -a name builtin command -p npm test', 'npm test'],
    ['env -u HOME -- stdbuf -oL npm test', 'npm test'],
    ["bash -c 'npm test'", 'npm test'],
    ["sh -euc -- 'npm test' name arg", 'npm test'],
    ["bash -o pipefail -c 'npm test'", 'npm test'],
    ['eval npm test', 'npm test'],
    ["eval 'npm' test", 'npm test'],
  ])('wrappers and payloads: %j runs %j', async (command, text) => {
    expect(await texts(command)).toEqual([text]);
    expect(await whys(command)).toEqual([]);
  });

  it('programs that start programs are kept, and what they start is checked as well', async () => {
    const sudo = (await analyzeShell('sudo -u root rm -rf x')).commands;
    expect(sudo.map((c) => [c.text, c.runBy])).toEqual([
      ['sudo -u root rm -rf x', undefined],
      ['rm -rf x', 'sudo'],
    ]);
    expect(sudo[0]!.also).toContain('rm -rf x');
    const xargs = (await analyzeShell('echo x | xargs -n1 rm')).commands;
    expect(xargs.map((c) => c.text)).toEqual(['echo x', 'xargs -n1 rm', 'rm']);
    expect(xargs[2]!.also).toContain('rm {}');
    const find = (await analyzeShell("find . -name '*.log' -exec rm {} + -execdir wc -l {} \\;")).commands;
    expect(find.map((c) => c.text)).toEqual([
      'find . -name *.log -exec rm {} + -execdir wc -l {} ;',
      'rm {}',
      'wc -l {}',
    ]);
  });
});

describe('redirections', () => {
  it('lists reads and writes to files, not fd duplications or here-docs', async () => {
    const a = await analyzeShell(
      'a > x 2>&1 >> y < z 3<> w <<< s >| v &> u &>> t >&2 >& q 2>/dev/null <<EOF\nbody\nEOF',
    );
    expect(a.redirects.map((r) => [r.op, r.target, r.write])).toEqual([
      ['>', 'x', true],
      ['>>', 'y', true],
      ['<', 'z', false],
      ['<>', 'w', true],
      ['>|', 'v', true],
      ['&>', 'u', true],
      ['&>>', 't', true],
      ['>&', 'q', true],
      ['>', '/dev/null', true],
    ]);
  });

  it('a target that depends on expansions has no fixed path', async () => {
    const a = await analyzeShell('a > ~/x > $HOME/y > *.txt > "$(b)" > z');
    expect(a.redirects.map((r) => r.target)).toEqual([null, null, null, null, 'z']);
    expect(a.commands.map((c) => c.text)).toEqual(['b', 'a']);
  });

  it('redirections inside substitutions and payloads count too', async () => {
    const a = await analyzeShell("echo $(a > /tmp/x) && bash -c 'b >> ~/.bashrc'");
    expect(a.redirects.map((r) => r.source)).toEqual(['> /tmp/x', '>> ~/.bashrc']);
  });
});

describe('what cannot be resolved statically', () => {
  it.each([
    ['$X y', /command name comes from an expansion/],
    ["$'\\x63url' x", /command name comes from an expansion/],
    ['c{u,}rl x', /glob or brace pattern/],
    ['/usr/bin/c?rl x', /glob or brace pattern/],
    ['\uff43\uff55\uff52\uff4c x', /plain ASCII/],
    ['npm\\;curl', /plain ASCII/],
    ['npm test\\;id', /escaped inside a word/],
    ['echo $((1))', /arithmetic/],
    ['(( x ))', /arithmetic/],
    ['let x=1', /arithmetic/],
    ['for ((;;)); do a; done', /arithmetic for loop/],
    ['[[ -f x ]]', /\[\[ … \]\] test/],
    ['echo ${x:-y}', /parameter expansion with an operator/],
    ['echo ${!x}', /parameter expansion with an operator/],
    ['echo ${x[1]}', /parameter expansion with an operator/],
    ['echo ${x@P}', /parameter expansion with an operator/],
    ['x=1', /variable assignment/],
    ['a[1]=2', /array, append or declare-style assignment/],
    ['a+=2 npm test', /array, append or declare-style assignment/],
    ['a[1]=2 npm test', /bash syntax the check cannot read/],
    ['export X=1', /declare\/export/],
    ['f() { a; }', /function definition/],
    ['PATH=. a', /setting PATH changes/],
    ['env LD_PRELOAD=x a', /setting LD_PRELOAD changes/],
    ['env -S "a b"', /env with options/],
    ['bash -i -c a', /startup files/],
    ['bash --rcfile x -c a', /an option the check does not follow/],
    ['bash -c "$X"', /code that depends on expansions/],
    ['eval "$X"', /code that depends on expansions/],
    ['zsh -c a', /only bash payloads/],
    ["echo x | xargs sh -c 'a'", /under xargs: its input becomes code/],
    ['find . -exec a', /without its closing/],
    ['git -c core.pager=a status', /git -c/],
    ['npm test --script-shell=./x', /npm --script-shell makes it run another program/],
    ['a "', /bash syntax the check cannot read/],
    ['a\rb', /control or invisible character, U\+000D/],
    ['a\u0000b', /control or invisible character, U\+0000/],
    ['a\u202eb', /U\+202E/],
    [`echo ${'x'.repeat(MAX_COMMAND_CHARS)}`, /longer than 10000 characters/],
    [`a; ${'b; '.repeat(1000)}`, /too large to check/],
    [`echo ${'$('.repeat(3000)}a${')'.repeat(3000)}`, /nested too deeply/],
    [`bash -c "bash -c \\"bash -c 'bash -c \\\\\\"bash -c a\\\\\\"'\\""`, /nested too deeply/],
  ])('%j: %s', async (command, why) => {
    expect((await whys(command)).join('; ')).toMatch(why);
  });

  it('commands inside what cannot be resolved are still read (deny rules see them)', async () => {
    expect(await texts('echo ${x:-$(a)}; export Y=$(b); f() { c; }; echo $(( $(d) ))')).toEqual(
      expect.arrayContaining(['a', 'b', 'c', 'd']),
    );
  });

  it('the same line is read once (a cached answer)', async () => {
    expect(await analyzeShell('npm test && echo cached')).toBe(await analyzeShell('npm test && echo cached'));
  });
});

describe('cd, writers and risky variables', () => {
  it('cd records its target when it is a plain word', async () => {
    const a = await analyzeShell('cd sub && cd -- "a b" ; cd ; cd - ; cd $X; cd ~');
    expect(a.commands.map((c) => c.cd?.target)).toEqual(['sub', 'a b', null, null, null, null]);
    expect(a.changesDir).toBe(true);
    expect((await analyzeShell('npm test')).changesDir).toBe(false);
  });

  it.each([
    ['rm', ['x'], true],
    ['tee', ['x'], true],
    ['sed', ['-i', 's/a/b/', 'f'], true],
    ['sed', ['-ni.bak', 'p', 'f'], true],
    ['sed', ['s/a/b/', 'f'], false],
    ['perl', ['-pi', '-e', 's/a/b/', 'f'], true],
    ['sort', ['-o', 'f', 'g'], true],
    ['sort', ['f'], false],
    ['curl', ['-sSLo', 'f', 'u'], true],
    ['curl', ['u'], false],
    ['find', ['.', '-delete'], true],
    ['find', ['.', '-name', 'x'], false],
    ['git', ['status'], false],
    ['git', ['-C', 'sub', 'log', '-1'], false],
    ['git', ['commit', '-m', 'x'], true],
    ['git', ['--no-pager', 'push'], true],
    ['npm', ['install'], true],
    ['npm', ['test'], false],
    ['npm', ['run', 'build'], false],
    ['pip', ['install', 'x'], true],
  ] as const)('%s %j changes files: %s', (name, args, expected) => {
    expect(changesFiles(name, args)).toBe(expected);
  });

  it.each([
    ['PATH', true],
    ['LD_PRELOAD', true],
    ['LD_LIBRARY_PATH', true],
    ['NODE_OPTIONS', true],
    ['BASH_ENV', true],
    ['GIT_PAGER', true],
    ['npm_config_script_shell', true],
    ['PYTHONPATH', true],
    ['IFS', true],
    ['HOME', true],
    ['NODE_ENV', false],
    ['CI', false],
    ['FORCE_COLOR', false],
    ['DEBUG', false],
    ['TZ', false],
  ])('setting %s is risky: %s', (name, expected) => {
    expect(isRiskyEnvName(name)).toBe(expected);
  });
});

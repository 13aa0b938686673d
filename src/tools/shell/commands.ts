/**
 * From the words of one simple command to the commands it really runs: the name
 * resolved (`/usr/bin/rm` → `rm`), wrappers looked through (`command`, `env`,
 * `exec`, `nohup`, `timeout`, …), programs that start other programs followed
 * (`sudo`, `xargs`, `find -exec`) and code strings handed to a shell (`bash -c`,
 * `eval`) returned to be parsed in turn.
 */
import { posix } from 'node:path';
import { isRiskyEnvName } from './env.js';
import { SUDO, skipOptions, WRAPPERS, XARGS } from './options.js';
import type { ShellCommand, ShellProblem, ShellWord } from './types.js';
import { wordSet } from './word-set.js';
import { changesFiles } from './writers.js';

export interface Resolved {
  commands: ShellCommand[];
  problems: ShellProblem[];
  /** Code strings a shell will run (`bash -c '…'`, `eval …`), to be parsed and checked too. */
  scripts: Array<{ code: string; source: string }>;
}

/** Directories whose programs are known by their base name. */
const SYSTEM_DIRS = wordSet('/bin /usr/bin /usr/local/bin /sbin /usr/sbin /usr/local/sbin');

/** Plain ASCII names only: look-alike letters, control characters and `;` in a name are not guessed at. */
const SAFE_NAME = /^[A-Za-z0-9_.+@%:,=/-]+$/;

/** Shells whose `-c` payload is parsed as bash; other shells' payloads are not checked. */
const BASH_LIKE = wordSet('bash sh dash ash ksh mksh rbash');
const OTHER_SHELLS = wordSet('zsh fish csh tcsh busybox pwsh nu xonsh elvish');

/** Programs that run a command given in their arguments: deny rules look at every suffix. */
const RUNNERS = wordSet(
  'sudo doas su pkexec run0 xargs find setsid ionice chrt taskset strace ltrace valgrind gdb ' +
    'unbuffer flock chroot nsenter unshare watch parallel firejail bwrap systemd-run script ssh ' +
    'entr faketime fakeroot proxychains proxychains4 torsocks rlwrap dbus-run-session catchsegv ' +
    'npx pnpx bunx trap sg newgrp runuser busybox caffeinate xdg-open open',
);

const PACKAGE_RUNNERS = wordSet('npm pnpm yarn bun npx pnpx');
const PACKAGE_RISKY_OPTION =
  /^--?(script-shell|node-options|userconfig|globalconfig|shell|call|c|prefix|scripts-prepend-node-path|init-module|onload-script)(=|$)/i;

/** `/bin/rm` → `rm`; any other path stays as written (a workspace `./npm` is not `npm`). */
export function resolveName(name: string): string {
  if (!name.includes('/')) return name;
  const normal = posix.normalize(name);
  return SYSTEM_DIRS.has(posix.dirname(normal)) ? posix.basename(normal) : name;
}

function joined(words: readonly ShellWord[]): string {
  return words.map((w) => w.value).join(' ');
}

interface Context {
  /** Inside `xargs` or `find -exec`: arguments are filled in from input, so shell payloads cannot be read. */
  fedInput: boolean;
  runBy?: string;
}

class Resolver {
  readonly out: Resolved = { commands: [], problems: [], scripts: [] };

  problem(words: readonly ShellWord[], why: string): void {
    this.out.problems.push({ source: words.map((w) => w.source).join(' '), why });
  }

  /** Records the command made of `words` and follows what it runs. */
  resolve(words: ShellWord[], ctx: Context, hops = 0): void {
    const head = words[0];
    if (!head) return;
    if (hops > 8) {
      this.problem(words, 'too many wrapper commands in a row');
      return;
    }
    if (head.kind === 'dynamic') {
      this.problem(words, 'the command name comes from an expansion');
      return;
    }
    if (head.kind === 'pattern') {
      this.problem(words, 'the command name is a glob or brace pattern');
      return;
    }
    if (head.value !== '[' && !SAFE_NAME.test(head.value)) {
      this.problem(words, 'the command name has characters other than plain ASCII letters, digits and -_./');
      return;
    }
    const name = resolveName(head.value);
    const rest = words.slice(1);
    const wrapper = WRAPPERS[name];
    if (wrapper) {
      const at = skipOptions(words, 1, wrapper);
      if (at === null) {
        this.problem(words, `${name} with options the check does not know`);
        return;
      }
      if (name === 'timeout') {
        this.afterTimeout(words, at, ctx, hops);
        return;
      }
      if (at < words.length) {
        this.resolve(words.slice(at), ctx, hops + 1);
        return;
      }
      this.emit(name, words, ctx);
      return;
    }
    if (name === 'env') {
      this.env(words, ctx, hops);
      return;
    }
    if (name === 'eval') {
      this.code(words, rest, ctx, 'eval');
      return;
    }
    if (BASH_LIKE.has(name) || OTHER_SHELLS.has(name)) {
      this.shell(name, words, ctx);
      return;
    }
    if (name === 'git') this.gitConfig(words);
    if (PACKAGE_RUNNERS.has(name)) this.packageOptions(name, words);
    this.emit(name, words, ctx);
    if (name === 'sudo' || name === 'doas' || name === 'run0') {
      const at = skipOptions(words, 1, SUDO);
      if (at !== null && at < words.length) this.resolve(words.slice(at), { ...ctx, runBy: name }, hops + 1);
    } else if (name === 'xargs') {
      const at = skipOptions(words, 1, XARGS);
      if (at === null) this.problem(words, 'xargs with options the check does not know');
      else if (at < words.length) this.resolve(words.slice(at), { fedInput: true, runBy: 'xargs' }, hops + 1);
    } else if (name === 'find') {
      this.findExec(words, hops);
    } else if (name === 'trap' && rest[0]) {
      this.code(words, [rest[0]], ctx, 'trap');
    }
  }

  private emit(name: string, words: ShellWord[], ctx: Context): void {
    const head = words[0]!;
    const args = words.slice(1);
    const text = [name, ...args.map((w) => w.value)].join(' ');
    const also = new Set<string>();
    if (head.value !== name) also.add([head.value, ...args.map((w) => w.value)].join(' '));
    const base = posix.basename(name);
    if (base !== name) also.add([base, ...args.map((w) => w.value)].join(' '));
    if (RUNNERS.has(name)) {
      for (let i = 1; i < words.length; i++) {
        const inner = words[i]!;
        also.add([posix.basename(inner.value), ...words.slice(i + 1).map((w) => w.value)].join(' '));
        if (/\s/.test(inner.value)) also.add(inner.value.trim());
      }
    }
    // Arguments that xargs or find fill in are unknown: `xargs rm` is matched as `rm {}` too.
    if (ctx.fedInput) also.add(`${text} {}`);
    also.delete(text);
    const command: ShellCommand = {
      name,
      text,
      also: [...also],
      source: words.map((w) => w.source).join(' '),
      changesFiles: changesFiles(
        name,
        args.map((w) => w.value),
      ),
    };
    if (name === 'cd' || name === 'pushd' || name === 'popd') {
      const operands = args.filter((w) => w.value !== '--' && w.value !== '-P' && w.value !== '-L');
      const only = operands.length === 1 && operands[0]!.kind === 'static' ? operands[0]!.value : null;
      command.cd = { target: name === 'cd' && only !== '-' ? only : null };
    }
    if (ctx.runBy) command.runBy = ctx.runBy;
    this.out.commands.push(command);
  }

  private afterTimeout(words: ShellWord[], at: number, ctx: Context, hops: number): void {
    // timeout [options] DURATION COMMAND …
    if (at >= words.length) {
      this.emit('timeout', words, ctx);
      return;
    }
    if (words[at]!.kind !== 'static') {
      this.problem(words, 'timeout with a duration the check cannot read');
      return;
    }
    if (at + 1 < words.length) {
      this.resolve(words.slice(at + 1), ctx, hops + 1);
      return;
    }
    this.emit('timeout', words, ctx);
  }

  private env(words: ShellWord[], ctx: Context, hops: number): void {
    let at = skipOptions(words, 1, {
      flags: 'i0v',
      valued: 'u',
      long: ['--ignore-environment', '--null', '--debug'],
      longValued: ['--unset'],
    });
    if (at === null) {
      this.problem(words, 'env with options the check does not follow, like -S or -C');
      return;
    }
    while (at < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at]!.value)) {
      const name = words[at]!.value.slice(0, words[at]!.value.indexOf('='));
      if (isRiskyEnvName(name))
        this.problem([words[at]!], `setting ${name} changes which program runs or how`);
      at++;
    }
    if (at < words.length && words[at]!.value === '-') at++;
    if (at < words.length) {
      this.resolve(words.slice(at), ctx, hops + 1);
      return;
    }
    this.emit('env', words, ctx);
    return;
  }

  /** `eval …`, `trap '…' SIG`: the words are shell code. */
  private code(words: ShellWord[], code: ShellWord[], ctx: Context, what: string): void {
    if (ctx.fedInput) {
      this.problem(words, `${what} under ${ctx.runBy}: its input becomes code`);
      return;
    }
    if (code.some((w) => w.kind === 'dynamic')) {
      this.problem(words, `${what} of code that depends on expansions`);
      return;
    }
    this.out.scripts.push({ code: joined(code), source: words.map((w) => w.source).join(' ') });
  }

  private shell(name: string, words: ShellWord[], ctx: Context): void {
    let i = 1;
    let payload = false;
    while (i < words.length) {
      const word = words[i]!;
      const v = word.value;
      if (word.kind !== 'static') {
        if (!payload && (v.startsWith('-') || word.kind === 'dynamic')) {
          this.problem(words, `${name} with options from an expansion`);
          return;
        }
        break;
      }
      if (v === '--' || v === '-') {
        i++;
        break;
      }
      if (['--norc', '--noprofile', '--posix', '--noediting', '--restricted', '--verbose'].includes(v)) {
        i++;
        continue;
      }
      if (v.startsWith('--')) {
        this.problem(words, `${name} ${v}: an option the check does not follow`);
        return;
      }
      if (!/^[-+]/.test(v)) break;
      let skip = 0;
      for (const c of v.slice(1)) {
        if (c === 'c') payload = true;
        else if (c === 'o' || c === 'O') skip++;
        else if (c === 'i' || c === 'l') {
          this.problem(words, `${name} -${c} runs the user's startup files`);
          return;
        } else if (!'abefhkmnprstuvxBCEHPT'.includes(c)) {
          this.problem(words, `${name} -${c}: an unknown option`);
          return;
        }
      }
      i += 1 + skip;
    }
    if (!payload) {
      this.emit(name, words, ctx);
      return;
    }
    const code = words[i];
    if (!code) {
      this.problem(words, `${name} -c without a command`);
      return;
    }
    if (OTHER_SHELLS.has(name)) {
      this.problem(words, `${name} -c: only bash payloads can be checked`);
      return;
    }
    this.code(words, [code], ctx, `${name} -c`);
  }

  /** npm-style options that make the package manager run another program for the script. */
  private packageOptions(name: string, words: ShellWord[]): void {
    const bad = words.slice(1).find((w) => PACKAGE_RISKY_OPTION.test(w.value));
    if (bad) this.problem(words, `${name} ${bad.value.split('=')[0]} makes it run another program`);
  }

  /** `git -c key=value …` can point a pager, editor or hook at any program. */
  private gitConfig(words: ShellWord[]): void {
    for (const w of words.slice(1)) {
      if (!w.value.startsWith('-')) return;
      if (w.value === '-c' || /^--(config-env|exec-path)/.test(w.value)) {
        this.problem(words, 'git -c sets configuration that can run other programs');
        return;
      }
    }
  }

  private findExec(words: ShellWord[], hops: number): void {
    for (let i = 1; i < words.length; i++) {
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(words[i]!.value)) continue;
      const end = words.findIndex((w, k) => k > i && (w.value === ';' || w.value === '+'));
      if (end < 0) {
        this.problem(words, `find ${words[i]!.value} without its closing ; or +`);
        return;
      }
      this.resolve(words.slice(i + 1, end), { fedInput: true, runBy: 'find' }, hops + 1);
      i = end;
    }
  }
}

/** The commands that one simple command's words run, and what could not be resolved. */
export function resolveCommand(words: ShellWord[]): Resolved {
  const resolver = new Resolver();
  resolver.resolve(words, { fedInput: false });
  return resolver.out;
}

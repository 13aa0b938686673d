/**
 * Permission rules applied to a shell command line, piece by piece: every simple
 * command gets the verdict of the rules (the last match wins, as for any call),
 * every redirection to a file the verdict of the mode for writes, and every part
 * that cannot be resolved statically at best "ask". The worst verdict decides,
 * and names the piece that needed it.
 */
import { statSync } from 'node:fs';
import { isAbsolute, posix, relative, sep } from 'node:path';
import { expandHome, isInside, realpathLoose, workspaceRoots } from '../workspace.js';
import type { ShellAnalysis, ShellCommand, ShellRedirect } from './types.js';

export type Action = 'allow' | 'ask' | 'deny';

export interface ShellRule {
  tool: string;
  pattern?: string;
  exact?: boolean;
  action: Action;
}

export interface ShellVerdict {
  action: Action;
  reason: string;
  /** The piece of the line that decided (a command, redirection or construct), when not allowed. */
  part?: string;
  /** A `pattern` for the tool that would allow that piece, when a rule can. */
  suggest?: string;
}

export interface ShellCheck {
  mode: 'read-only' | 'ask' | 'auto-edit' | 'yolo';
  /** The mode's default for exec tools and for writes. */
  execDefault: Action;
  writeDefault: Action;
  /** Rules for this tool, in order. */
  rules: readonly ShellRule[];
  /** The whole command line (session grants match it exactly). */
  subject: string;
  matches(glob: string, text: string): boolean;
  cwd?: string;
  roots?: readonly string[];
  /** CDPATH of the environment commands run with, when set. */
  cdpath?: string;
}

const RANK: Record<Action, number> = { allow: 0, ask: 1, deny: 2 };
const SAFE_DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/fd/1', '/dev/fd/2']);
const SAFE_INPUTS = new Set(['/dev/null', '/dev/zero', '/dev/urandom', '/dev/random', '/dev/stdin']);

function label(rule: ShellRule): string {
  return `rule ${rule.action} ${rule.tool}${rule.pattern === undefined ? '' : `:${rule.pattern}`}`;
}

function describe(action: Action): string {
  return action === 'allow' ? 'run' : action === 'ask' ? 'need approval' : 'are not allowed';
}

/** A rule for the first words of a command (what `--allow` would need). */
function suggestion(command: ShellCommand): string {
  return `${command.text.split(' ').slice(0, 2).join(' ')}*`;
}

type Where = 'device' | 'inside' | 'outside' | 'unknown';

/** Where a redirection's file is: a harmless device, inside the workspace, or not. */
function whereIs(target: string | null, write: boolean, check: ShellCheck, changesDir: boolean): Where {
  if (target === null) return 'unknown';
  if ((write ? SAFE_DEVICES : SAFE_INPUTS).has(target)) return 'device';
  if (!check.cwd) return 'unknown';
  // After a `cd` a relative path is relative to wherever it went (cd targets are judged
  // from the workspace, but a chain of them, or symlinks below, can end elsewhere).
  if (changesDir && !isAbsolute(target)) return 'unknown';
  try {
    const roots = workspaceRoots({ cwd: check.cwd, allowedRoots: [...(check.roots ?? [])] });
    const real = realpathLoose(posix.resolve(check.cwd, expandHome(target)));
    const root = roots.find((r) => isInside(r, real));
    if (!root) return 'outside';
    if (write && relative(root, real).split(sep).includes('.git')) return 'outside';
    return 'inside';
  } catch {
    return 'unknown'; // a symlink loop, say
  }
}

/**
 * `cd DIR` to an existing directory inside the workspace changes nothing by itself,
 * and every command after it is checked all the same. With CDPATH set (commands
 * inherit the environment), bash looks for a plain `DIR` there first, so only
 * `/…`, `./…` and `../…` forms count then.
 */
function cdInside(command: ShellCommand, check: ShellCheck): boolean {
  const target = command.cd?.target;
  if (target === null || target === undefined || !check.cwd || target.startsWith('~')) return false;
  if (check.cdpath && !/^(\/|\.\.?(\/|$))/.test(target)) return false;
  try {
    const roots = workspaceRoots({ cwd: check.cwd, allowedRoots: [...(check.roots ?? [])] });
    const real = realpathLoose(posix.resolve(check.cwd, target));
    return roots.some((r) => isInside(r, real)) && statSync(real).isDirectory();
  } catch {
    return false;
  }
}

class Judge {
  private readonly toolDefault: ShellVerdict;
  /** Deny or ask rules with patterns: what cannot be resolved might be what they are about. */
  private readonly guarded: boolean;

  constructor(private readonly check: ShellCheck) {
    let verdict: ShellVerdict = {
      action: check.execDefault,
      reason: `${check.mode} mode: exec tools ${describe(check.execDefault)}`,
    };
    for (const rule of check.rules) {
      if (rule.pattern === undefined) verdict = { action: rule.action, reason: label(rule) };
    }
    this.toolDefault = verdict;
    this.guarded = check.rules.some((r) => r.pattern !== undefined && !r.exact && r.action !== 'allow');
  }

  command(c: ShellCommand): ShellVerdict {
    let verdict: ShellVerdict = cdInside(c, this.check)
      ? { action: 'allow', reason: 'cd inside the workspace' }
      : this.toolDefault;
    /** A rule with a pattern matched this command (rather than the mode or a rule for every command). */
    let matched = false;
    for (const rule of this.check.rules) {
      if (rule.exact) continue;
      // Allow rules match the resolved command only; deny and ask rules also every other form of it.
      const texts = rule.action === 'allow' ? [c.text] : [c.text, ...c.also];
      if (rule.pattern === undefined || texts.some((t) => this.check.matches(rule.pattern!, t))) {
        verdict = { action: rule.action, reason: label(rule) };
        matched = rule.pattern !== undefined;
      }
    }
    if (this.check.mode === 'read-only' && c.changesFiles) {
      return {
        action: 'deny',
        reason: `read-only mode refuses \`${c.source}\`: it changes files`,
        part: c.source,
      };
    }
    if (verdict.action === 'allow') return verdict;
    const reason = matched
      ? `${verdict.reason} matches \`${c.source}\``
      : verdict.reason.startsWith('rule ')
        ? `${verdict.reason} covers \`${c.source}\``
        : `${verdict.reason}, and no allow rule covers \`${c.source}\``;
    return {
      action: verdict.action,
      reason,
      part: c.source,
      ...(verdict.action === 'ask' ? { suggest: suggestion(c) } : {}),
    };
  }

  /** For what cannot be resolved: never allowed by a pattern rule, nor past a deny or ask pattern. */
  private unresolved(): Action {
    if (this.toolDefault.action === 'allow') return this.guarded ? 'ask' : 'allow';
    return this.toolDefault.action;
  }

  problem(source: string, why: string): ShellVerdict {
    const action = this.unresolved();
    return { action, reason: `\`${source}\` cannot be checked: ${why}`, part: source };
  }

  redirect(r: ShellRedirect, changesDir: boolean): ShellVerdict {
    const where = whereIs(r.target, r.write, this.check, changesDir);
    if (where === 'device') return { action: 'allow', reason: 'a redirection to a device' };
    const part = r.source;
    if (this.check.mode === 'read-only' && r.write) {
      return { action: 'deny', reason: `read-only mode refuses \`${part}\`: it writes a file`, part };
    }
    if (where === 'inside') {
      if (!r.write) return { action: 'allow', reason: 'reads a file in the workspace' };
      const byRule = this.toolDefault.action === 'allow' && this.toolDefault.reason.startsWith('rule ');
      const action = byRule ? 'allow' : this.check.writeDefault;
      return {
        action,
        reason: `\`${part}\` writes a file, and in ${this.check.mode} mode writes ${describe(action)}`,
        part,
      };
    }
    const what = where === 'outside' ? 'outside the workspace' : 'to a path that depends on expansions';
    const action = this.unresolved();
    return { action, reason: `\`${part}\` ${r.write ? 'writes' : 'reads'} ${what}`, part };
  }
}

/**
 * Rule patterns (`--allow 'bash:<pattern>'`) for every command of the line that
 * would be asked about under `check`, in order and without repeats: what a rerun
 * needs besides a mode. Commands a deny rule refuses get none.
 */
export function askedPatterns(analysis: ShellAnalysis, check: ShellCheck): string[] {
  const judge = new Judge(check);
  const patterns = analysis.commands
    .map((c) => judge.command(c))
    .filter((v) => v.action === 'ask' && v.suggest !== undefined)
    .map((v) => v.suggest!);
  return [...new Set(patterns)];
}

/** The verdict on a whole command line. */
export function decideShell(analysis: ShellAnalysis, check: ShellCheck): ShellVerdict {
  const judge = new Judge(check);
  const verdicts: ShellVerdict[] = [
    ...analysis.commands.map((c) => judge.command(c)),
    ...analysis.redirects.map((r) => judge.redirect(r, analysis.changesDir)),
    ...analysis.problems.map((p) => judge.problem(p.source, p.why)),
  ];
  if (verdicts.length === 0) return judge.problem(check.subject.trim() || '(empty)', 'it runs no command');
  // A session grant ("always" for this exact line) answers what would be asked, not what is refused.
  const granted = check.rules.some((r) => r.exact && r.action === 'allow' && r.pattern === check.subject);
  const effective = (v: ShellVerdict): Action => (granted && v.action === 'ask' ? 'allow' : v.action);
  let worst = verdicts[0]!;
  for (const v of verdicts) if (RANK[effective(v)] > RANK[effective(worst)]) worst = v;
  if (effective(worst) === 'allow' && worst.action === 'ask')
    return { action: 'allow', reason: 'allowed for this session' };
  if (worst.action !== 'allow') return worst;
  const reasons = [...new Set(verdicts.map((v) => v.reason))];
  return { action: 'allow', reason: reasons.join('; ') };
}

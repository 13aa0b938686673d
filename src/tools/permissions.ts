/**
 * The approval policy: a mode sets the default per approval class, and ordered
 * rules from config or flags refine it (the last matching rule wins). Session
 * grants ("always allow for this session") sit on top. A shell tool's command
 * line is parsed and judged command by command (shell/decide.ts).
 */
import { shellAnalysis } from './describe.js';
import { askedPatterns, decideShell, type ShellCheck } from './shell/decide.js';
import type { ShellAnalysis } from './shell/types.js';
import type { ApprovalClass, CallFacts } from './types.js';

export type PermissionMode = 'read-only' | 'ask' | 'auto-edit' | 'yolo';
export type RuleAction = 'allow' | 'ask' | 'deny';

export const PERMISSION_MODES: readonly PermissionMode[] = ['read-only', 'ask', 'auto-edit', 'yolo'];

export interface PermissionRule {
  /** A tool name, or a glob over names (`git_*`, `*`). */
  tool: string;
  /** A glob over the call's subject (command, path or URL); absent matches every call. */
  pattern?: string;
  /** The pattern is a literal subject, not a glob (session grants). */
  exact?: boolean;
  action: RuleAction;
}

export interface PermissionDecision {
  action: RuleAction;
  reason: string;
  /** For a shell command line: the piece that needed approval or was refused (a sub-command, redirection, construct). */
  part?: string;
  /** A rule pattern for this tool that would let that piece run, when one can. */
  suggest?: string;
  /**
   * For a shell command line that was not allowed: what lets the whole line run in a
   * rerun, checked by deciding again with it: a mode (when the current one is not
   * enough, say for a redirection to a file in ask mode) and `tool:pattern` allow
   * rules for each command that needs one. Absent when no mode and rules would do.
   */
  rerun?: { mode?: PermissionMode; allow: string[] };
}

/** The default action of each mode for each approval class. */
const MATRIX: Record<PermissionMode, Record<ApprovalClass, RuleAction>> = {
  'read-only': { none: 'allow', write: 'deny', exec: 'deny', network: 'ask' },
  ask: { none: 'allow', write: 'ask', exec: 'ask', network: 'ask' },
  'auto-edit': { none: 'allow', write: 'allow', exec: 'ask', network: 'ask' },
  yolo: { none: 'allow', write: 'allow', exec: 'allow', network: 'allow' },
};

/** A glob to a regex: `*` and `**` match any run of characters, `?` one. */
function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      while (glob[i + 1] === '*') i++;
      re += '.*';
    } else if (c === '?') {
      re += '.';
    } else {
      re += c.replace(/[.+^${}()|[\]\\/]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`, 's');
}

const compiled = new Map<string, RegExp>();
function matches(glob: string, value: string): boolean {
  let re = compiled.get(glob);
  if (!re) {
    re = globToRegExp(glob);
    compiled.set(glob, re);
  }
  return re.test(value);
}

/** A subject matches a pattern as a whole, or (for a pattern without `/`) by its last path segment. */
function subjectMatches(pattern: string, subject: string): boolean {
  if (matches(pattern, subject)) return true;
  if (pattern.includes('/')) return false;
  const base = subject.slice(subject.lastIndexOf('/') + 1);
  return base !== subject && matches(pattern, base);
}

/**
 * Parses a rule written on the command line: `tool`, `tool:pattern`,
 * or with an action prefix `deny:tool:pattern` / `ask:tool`.
 */
export function parseRule(text: string, defaultAction: RuleAction = 'allow'): PermissionRule {
  let rest = text.trim();
  let action = defaultAction;
  const prefix = /^(allow|ask|deny):/.exec(rest);
  if (prefix) {
    action = prefix[1] as RuleAction;
    rest = rest.slice(prefix[0].length);
  }
  const colon = rest.indexOf(':');
  const tool = (colon < 0 ? rest : rest.slice(0, colon)).trim();
  const pattern = colon < 0 ? undefined : rest.slice(colon + 1).trim();
  if (!tool)
    throw new Error(`invalid permission rule ${JSON.stringify(text)}: expected tool or tool:pattern`);
  return pattern ? { tool, pattern, action } : { tool, action };
}

export { callFacts, describeCall } from './describe.js';
export type { CallFacts } from './types.js';

export class PermissionPolicy {
  private readonly grants: PermissionRule[] = [];

  constructor(
    public mode: PermissionMode = 'ask',
    private readonly rules: readonly PermissionRule[] = [],
  ) {}

  /** Rules in force: config/flag rules, then session grants (which win). */
  get allRules(): readonly PermissionRule[] {
    return [...this.rules, ...this.grants];
  }

  /**
   * The verdict on a described call (`describeCall`): allow, ask (with the reason and,
   * for a shell line, the part that needs approval) or deny (with the reason).
   */
  async check(call: CallFacts): Promise<PermissionDecision> {
    if (call.shell && call.subject !== undefined) return this.checkShell(call, call.subject);
    let action = MATRIX[this.mode][call.approval];
    let reason = `${this.mode} mode: ${call.approval === 'none' ? 'read' : call.approval} tools ${describe(action)}`;
    for (const rule of this.allRules) {
      if (!matches(rule.tool, call.tool)) continue;
      if (rule.pattern !== undefined && !ruleMatchesSubject(rule, call.subject)) continue;
      action = rule.action;
      reason = `rule ${rule.action} ${rule.tool}${rule.pattern ? `:${rule.pattern}` : ''}`;
    }
    // read-only means nothing changes: no rule or grant lets a write or exec tool run
    // (as for shell commands, where read-only refuses writers whatever the rules say).
    if (
      this.mode === 'read-only' &&
      (call.approval === 'write' || call.approval === 'exec') &&
      action !== 'deny'
    ) {
      return {
        action: 'deny',
        reason: `read-only mode refuses ${call.approval} tools, whatever the rules say (${reason})`,
      };
    }
    return { action, reason };
  }

  /** `check` under the name tools use (`PermissionView`: the sandbox asks it about the network). */
  decide(call: CallFacts): Promise<PermissionDecision> {
    return this.check(call);
  }

  private async checkShell(call: CallFacts, subject: string): Promise<PermissionDecision> {
    const analysis = await shellAnalysis(subject);
    const check = (mode: PermissionMode, extra: readonly PermissionRule[] = []): ShellCheck => ({
      mode,
      execDefault: MATRIX[mode][call.approval],
      writeDefault: MATRIX[mode].write,
      rules: [...this.allRules.filter((rule) => matches(rule.tool, call.tool)), ...extra],
      subject,
      matches,
      ...(call.cwd === undefined ? {} : { cwd: call.cwd }),
      ...(call.roots === undefined ? {} : { roots: call.roots }),
      ...(process.env.CDPATH ? { cdpath: process.env.CDPATH } : {}),
    });
    const verdict: PermissionDecision = decideShell(analysis, check(this.mode));
    if (verdict.action === 'allow') return verdict;
    const rerun = shellRerun(analysis, call.tool, this.mode, check);
    return rerun ? { ...verdict, rerun } : verdict;
  }

  /** The rule "always for this session" would add for a call (see `grant`); nothing is granted. */
  grantRule(call: CallFacts): PermissionRule {
    return call.subject
      ? { tool: call.tool, pattern: call.subject, exact: true, action: 'allow' }
      : { tool: call.tool, action: 'allow' };
  }

  /** "Always for this session": allows this tool (for this exact subject when there is one). */
  grant(call: CallFacts): PermissionRule {
    const rule = this.grantRule(call);
    this.grants.push(rule);
    return rule;
  }

  /** Restores grants saved by an earlier run of the session. */
  restoreGrants(rules: readonly PermissionRule[]): void {
    this.grants.push(...rules);
  }

  get sessionGrants(): readonly PermissionRule[] {
    return this.grants;
  }
}

/**
 * The least a rerun needs for a whole shell line to run: allow rules for its commands
 * in the current mode, else also auto-edit (its redirections write files); read-only
 * becomes ask first. Each candidate is decided again, so the answer is what works.
 */
function shellRerun(
  analysis: ShellAnalysis,
  tool: string,
  mode: PermissionMode,
  check: (mode: PermissionMode, extra?: readonly PermissionRule[]) => ShellCheck,
): { mode?: PermissionMode; allow: string[] } | undefined {
  const modes: PermissionMode[] = mode === 'read-only' || mode === 'ask' ? ['ask', 'auto-edit'] : [mode];
  for (const m of modes) {
    const patterns = askedPatterns(analysis, check(m));
    const rules = patterns.map((pattern): PermissionRule => ({ tool, pattern, action: 'allow' }));
    if (decideShell(analysis, check(m, rules)).action !== 'allow') continue;
    return { ...(m === mode ? {} : { mode: m }), allow: patterns.map((p) => `${tool}:${p}`) };
  }
  return undefined;
}

function describe(action: RuleAction): string {
  return action === 'allow' ? 'run' : action === 'ask' ? 'need approval' : 'are not allowed';
}

function ruleMatchesSubject(rule: PermissionRule, subject: string | undefined): boolean {
  if (subject === undefined || rule.pattern === undefined) return false;
  return rule.exact ? rule.pattern === subject : subjectMatches(rule.pattern, subject);
}

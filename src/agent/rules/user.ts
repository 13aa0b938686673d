/**
 * User rules (config `rules:`): a regular expression over the prompt's line, a tool
 * and its arguments. How captures are substituted, exactly:
 *
 * - only into string values of `args` (nested mappings and lists included), never
 *   into keys, numbers or booleans;
 * - `$1`…`$99` take capture n (an unmatched optional group gives ""), `$0` the whole
 *   match, `$$` a literal `$`;
 * - in one pass: a capture's own text is inserted as it is and never expanded again,
 *   so a prompt holding `$1` or `; rm -rf ~` cannot reach into another capture. What
 *   it holds still goes to the tool, so a `bash` rule's command line is checked by the
 *   shell-line permission checks like any other (a capture's `; rm` is refused there).
 *
 * Patterns were checked when the config was read (config/rules.ts: compiles, no
 * nested repetition, `$n` in range); the input is at most `MAX_USER_RULE_INPUT`
 * characters of one line, which bounds even a polynomial pattern's time.
 */
import type { UserRuleConfig } from '../../config/types.js';
import { unsafeRegexReason } from '../../util/regex-safety.js';
import type { RuleMatch } from './grammar.js';

/** User rules see at most this many characters (a command, not a paste). */
export const MAX_USER_RULE_INPUT = 1000;

/** A user rule ready to match. */
export interface UserRule {
  readonly re: RegExp;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly description?: string;
  /** Where it was defined (named in errors). */
  readonly source: string;
  /** The pattern as written. */
  readonly pattern: string;
}

/** Compiles config rules (already checked); throws for one that is not (a library caller's). */
export function compileUserRules(rules: readonly UserRuleConfig[]): UserRule[] {
  return rules.map((r) => {
    const unsafe = unsafeRegexReason(r.pattern);
    if (unsafe) throw new Error(`${r.source}.pattern: ${unsafe}`);
    return {
      re: new RegExp(r.pattern),
      tool: r.tool,
      args: r.args,
      source: r.source,
      pattern: r.pattern,
      ...(r.description === undefined ? {} : { description: r.description }),
    };
  });
}

const REF = /\$(\$|\d{1,2})/g;

/** `value` with the captures put into its strings (see above). */
export function substitute(value: unknown, groups: readonly (string | undefined)[]): unknown {
  if (typeof value === 'string')
    return value.replace(REF, (_, ref: string) => (ref === '$' ? '$' : (groups[Number(ref)] ?? '')));
  if (Array.isArray(value)) return value.map((v) => substitute(v, groups));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, groups)]));
  return value;
}

/** The first user rule matching `line`, or undefined. */
export function matchUser(line: string, rules: readonly UserRule[]): RuleMatch | undefined {
  if (line.length > MAX_USER_RULE_INPUT) return undefined;
  for (const rule of rules) {
    const m = rule.re.exec(line);
    if (!m) continue;
    const args = substitute(rule.args, [...m]) as Record<string, unknown>;
    return { kind: 'tool', rule: rule.source, tool: rule.tool, args };
  }
  return undefined;
}

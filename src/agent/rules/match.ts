/**
 * Which rule, if any, answers a prompt: the built-in rules first (fixed prefixes:
 * `!`, `/read`, …), then the user rules in config order; the first match wins.
 * Rules apply only to a new prompt: a steering or follow-up message sent while a
 * turn runs is always for the model.
 */
import {
  MAX_RULE_INPUT,
  matchBuiltin,
  RULE_COMMANDS,
  type RuleMatch,
  ruleLine,
  SHELL_RULE,
} from './grammar.js';
import { matchUser, type UserRule } from './user.js';

/** The fast path's settings: on or off, and the user rules. */
export interface RuleSettings {
  /** false: no prompt is answered by a rule (config `rules_fast_path: false`). */
  fastPath: boolean;
  user: readonly UserRule[];
}

export const NO_RULES: RuleSettings = Object.freeze({ fastPath: true, user: [] });

/** The rule answering `input`, or undefined when it is a prompt for the model. */
export function matchRule(input: string, rules: RuleSettings): RuleMatch | undefined {
  if (!rules.fastPath) return undefined;
  const line = ruleLine(input);
  if (line === undefined) return undefined;
  return matchBuiltin(line) ?? matchUser(line, rules.user);
}

/** The rules that work, one per line, for a help text (e.g. when no model is configured). */
export function describeRules(rules: RuleSettings): string {
  if (!rules.fastPath) return 'The rule-engine fast path is off (rules_fast_path: false).';
  const lines = [
    `  ${'!<command>'.padEnd(24)}${SHELL_RULE.description}`,
    ...RULE_COMMANDS.map((c) => `  ${`/${c.name} ${c.argumentHint ?? ''}`.padEnd(24)}${c.description}`),
    ...rules.user.map((r) => `  ${r.pattern.padEnd(24)}${r.description ?? `runs ${r.tool}`} (${r.source})`),
  ];
  return [
    `These commands work without a model (one line, at most ${MAX_RULE_INPUT} characters):`,
    ...lines,
  ].join('\n');
}

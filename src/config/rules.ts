/**
 * The user rules of the rule-engine fast path (`rules:`), checked when their file is
 * read, so a mistake is told at start-up with its file and key rather than when a
 * prompt happens to match: the pattern compiles and cannot backtrack
 * catastrophically, `args` is a mapping, and every `$n` in it names a capture the
 * pattern has. Whether `tool` exists is known only once the tools are (at match time).
 */
import { unsafeRegexReason } from '../util/regex-safety.js';
import { ConfigError, displayPath } from './errors.js';
import type { RawUserRule } from './schema.js';
import type { UserRuleConfig } from './types.js';

/** `$1`…`$99` (and `$0`, the whole match) in a string value; `$$` is a literal `$`. */
export const CAPTURE_REF = /\$(\$|\d{1,2})/g;

function fail(file: string, key: string, problem: string, fix: string): never {
  throw new ConfigError(`${displayPath(file)}: ${key}: ${problem}. Fix: ${fix}`, { file, key, fix });
}

/** How many capture groups `re` has (an empty alternative always matches). */
function captureCount(source: string): number {
  return (new RegExp(`${source}|`).exec('')?.length ?? 1) - 1;
}

/** Every string inside `value` (nested mappings and lists too), with its dotted key. */
function strings(value: unknown, key: string): Array<[string, string]> {
  if (typeof value === 'string') return [[key, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${key}[${i}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => strings(v, `${key}.${k}`));
  return [];
}

/** The rules of one file, checked (throws ConfigError naming the file, the key and the fix). */
export function toUserRules(raw: readonly RawUserRule[] | undefined, file: string): UserRuleConfig[] {
  return (raw ?? []).map((rule, i) => {
    const key = `rules[${i}]`;
    let groups: number;
    try {
      groups = captureCount(rule.pattern);
    } catch (e) {
      const why = (e as Error).message.replace(/^Invalid regular expression: /, '');
      fail(
        file,
        `${key}.pattern`,
        `not a valid regular expression (${why})`,
        'correct the pattern; quote it in single quotes in YAML',
      );
    }
    const unsafe = unsafeRegexReason(rule.pattern);
    if (unsafe)
      fail(
        file,
        `${key}.pattern`,
        `the pattern could take exponential time on some prompts: ${unsafe}`,
        'remove the repetition around the group, e.g. `(\\w+)` instead of `(\\w+)+`',
      );
    const args = rule.args ?? {};
    for (const [where, text] of strings(args, `${key}.args`)) {
      for (const m of text.matchAll(CAPTURE_REF)) {
        if (m[1] === '$') continue;
        const n = Number(m[1]);
        if (n > groups)
          fail(
            file,
            where,
            `$${n} names capture ${n}, but the pattern has ${groups === 0 ? 'no captures' : `only ${groups}`}`,
            groups === 0
              ? 'add a group in parentheses to the pattern, e.g. `^deploy (\\w+)$`, or write $$ for a literal $'
              : `use $1 to $${groups} (or $0, the whole prompt), or write $$ for a literal $`,
          );
      }
    }
    return {
      pattern: rule.pattern,
      tool: rule.tool,
      args,
      ...(rule.description === undefined ? {} : { description: rule.description }),
      source: `${displayPath(file)}: ${key}`,
    };
  });
}

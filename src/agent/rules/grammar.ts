/**
 * The built-in rules of the fast path: explicit commands that run one tool without a
 * model call. The grammar, exactly (the table test in test/agent/rules/ holds it):
 *
 * - A prompt is considered only when it is one line (trailing spaces and newlines are
 *   ignored) of at most `MAX_RULE_INPUT` characters, and starts at its first
 *   character: ` !ls` (a leading space) and pasted multi-line text are prompts for the
 *   model, whatever they start with.
 * - `!<command>` runs `<command>` (trimmed) with `bash`. `!` alone, or `!` and spaces,
 *   is no rule.
 * - `/read <path>`, `/ls [path]`, `/grep <pattern> [path]`, `/time [zone]`: the name is
 *   lower case and ends at a space or the end (`/readme`, `/READ` are no rules).
 *   Arguments are words split at spaces; `'…'` and `"…"` group a word with spaces
 *   (inside `"…"`, `\"` and `\\` stand for `"` and `\`); nothing else is special, so a
 *   pattern like `-rf` or `a|b` is passed as it is. A wrong number of arguments or an
 *   open quote is a usage error, answered without a model call and stored nowhere.
 */

/** A command the fast path answers, for help texts and slash completion. */
export interface RuleCommand {
  /** What the user types: `!` or a slash command's name without the slash. */
  name: string;
  description: string;
  argumentHint?: string;
}

/** The slash commands among the built-in rules (names without the `/`), for slash completion. */
export const RULE_COMMANDS: readonly RuleCommand[] = [
  { name: 'read', description: 'Read a file (read_file), no model call', argumentHint: '<path>' },
  { name: 'ls', description: 'List a directory (list_dir), no model call', argumentHint: '[path]' },
  {
    name: 'grep',
    description: 'Search files for a regex (grep), no model call',
    argumentHint: '<pattern> [path]',
  },
  {
    name: 'time',
    description: 'The current date and time (current_time), no model call',
    argumentHint: '[zone]',
  },
];

/** `!<command>`: a shell command line, under the permission policy like any bash call. */
export const SHELL_RULE: RuleCommand = {
  name: '!',
  description: 'Run a shell command (bash) under the permission policy, no model call',
  argumentHint: '<command>',
};

/** The id prefix of a rule's tool call: its turn is answered (by the tool), so there is nothing to retry. */
export const RULE_CALL_PREFIX = 'rule_';

/** Longer prompts are never rules: a command is a line, a megabyte is a paste. */
export const MAX_RULE_INPUT = 4096;

/** A prompt a rule answers: the tool to call with its arguments. */
export interface ToolRuleMatch {
  kind: 'tool';
  /** Which rule: `!`, `/read`, … or a user rule's source (`~/.tea/config.yaml: rules[0]`). */
  rule: string;
  tool: string;
  args: Record<string, unknown>;
}

/** A prompt that names a rule but cannot run: the message says what to fix. */
export interface UsageRuleMatch {
  kind: 'usage';
  rule: string;
  message: string;
}

export type RuleMatch = ToolRuleMatch | UsageRuleMatch;

/** The one line a rule may match, or undefined when the prompt cannot be a rule. */
export function ruleLine(input: string): string | undefined {
  if (input.length > MAX_RULE_INPUT + 64) return undefined; // before trimming a megabyte
  const line = input.replace(/\s+$/, '');
  if (line.length === 0 || line.length > MAX_RULE_INPUT || /[\r\n]/.test(line)) return undefined;
  return line;
}

/** Splits arguments into words (see the grammar above); a string is the error. */
export function splitWords(text: string): string[] | string {
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) break;
    let word = '';
    while (i < text.length && !/\s/.test(text[i]!)) {
      const c = text[i]!;
      if (c === "'" || c === '"') {
        const end = closing(text, i, c);
        if (end < 0) return `the quote ${c} at character ${i + 1} is not closed`;
        const inner = text.slice(i + 1, end);
        word += c === '"' ? inner.replace(/\\(["\\])/g, '$1') : inner;
        i = end + 1;
      } else {
        word += c;
        i++;
      }
    }
    words.push(word);
  }
  return words;
}

/** The index of the quote closing the one at `start` (`\"` does not close `"…"`), or -1. */
function closing(text: string, start: number, quote: string): number {
  for (let i = start + 1; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return -1;
}

interface Builtin {
  tool: string;
  min: number;
  max: number;
  args: (words: string[]) => Record<string, unknown>;
}

const BUILTINS: Record<string, Builtin> = {
  read: { tool: 'read_file', min: 1, max: 1, args: ([path]) => ({ path }) },
  ls: { tool: 'list_dir', min: 0, max: 1, args: ([path]) => (path === undefined ? {} : { path }) },
  grep: {
    tool: 'grep',
    min: 1,
    max: 2,
    args: ([pattern, path]) => (path === undefined ? { pattern } : { pattern, path }),
  },
  time: { tool: 'current_time', min: 0, max: 1, args: ([timezone]) => (timezone ? { timezone } : {}) },
};

function usage(name: string): string {
  const c = RULE_COMMANDS.find((r) => r.name === name)!;
  return `/${name}${c.argumentHint ? ` ${c.argumentHint}` : ''}`;
}

/** The built-in rule `line` (from `ruleLine`) names, or undefined. */
export function matchBuiltin(line: string): RuleMatch | undefined {
  if (line.startsWith('!')) {
    const command = line.slice(1).trim();
    return command ? { kind: 'tool', rule: '!', tool: 'bash', args: { command } } : undefined;
  }
  const m = /^\/([a-z]+)(?:\s+(.*))?$/.exec(line);
  if (!m) return undefined;
  const name = m[1]!;
  const builtin = Object.hasOwn(BUILTINS, name) ? BUILTINS[name] : undefined;
  if (!builtin) return undefined;
  const rule = `/${name}`;
  const words = splitWords(m[2] ?? '');
  if (typeof words === 'string')
    return { kind: 'usage', rule, message: `${rule}: ${words}. Usage: ${usage(name)}` };
  if (words.length < builtin.min || words.length > builtin.max) {
    const want =
      builtin.max === 0
        ? 'takes no arguments'
        : builtin.min === builtin.max
          ? `takes ${builtin.min === 1 ? 'one argument' : `${builtin.min} arguments`}`
          : `takes ${builtin.min} to ${builtin.max} arguments`;
    const quote = words.length > builtin.max ? ' (quote a path with spaces: "my file.txt")' : '';
    return {
      kind: 'usage',
      rule,
      message: `${rule} ${want}, got ${words.length}${quote}. Usage: ${usage(name)}`,
    };
  }
  return { kind: 'tool', rule, tool: builtin.tool, args: builtin.args(words) };
}

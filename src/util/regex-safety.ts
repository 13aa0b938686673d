/**
 * A static guard against regular expressions that can take exponential time in a
 * backtracking engine (V8's): a quantified group that itself holds a quantifier or an
 * alternation, e.g. `(a+)+`, `(a*)*b`, `(a|aa)+`, `(\w+\s?)*$`. Such a pattern can spin
 * for minutes on a few dozen characters, so config-defined patterns are refused up
 * front instead of being run under a timer. The check is conservative: it may refuse a
 * harmless pattern like `(ab|cd)+`, which can always be written another way.
 */

/** Why `source` may backtrack catastrophically, or undefined when it looks linear. */
export function unsafeRegexReason(source: string): string | undefined {
  // One frame per open group: whether it holds a quantifier or an alternation so far.
  const stack: Array<{ quantified: boolean; alternation: boolean }> = [
    { quantified: false, alternation: false },
  ];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++; // an escaped character is a literal (or a class like \w): never a group or quantifier
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    const top = stack[stack.length - 1]!;
    switch (c) {
      case '[':
        inClass = true;
        break;
      case '(':
        stack.push({ quantified: false, alternation: false });
        break;
      case '|':
        top.alternation = true;
        break;
      case ')': {
        const group = stack.length > 1 ? stack.pop()! : top;
        const parent = stack[stack.length - 1]!;
        if (isQuantifier(source, i + 1)) {
          if (group.quantified)
            return `a repeated group holds a repetition itself (like (a+)+) at character ${i + 1}`;
          if (group.alternation)
            return `a repeated group holds alternatives (like (a|aa)+) at character ${i + 1}`;
          parent.quantified = true;
        } else {
          parent.quantified ||= group.quantified;
          // An alternation inside a plain group matters only if an outer group repeats it.
          parent.alternation ||= group.alternation;
        }
        break;
      }
      case '*':
      case '+':
      case '?':
        top.quantified ||= c !== '?';
        break;
      case '{':
        if (/^\{\d+(,\d*)?\}/.test(source.slice(i))) top.quantified = true;
        break;
    }
  }
  return undefined;
}

/** Whether a quantifier that repeats (`*`, `+`, `{n,}` or `{n,m}` with m > 1) starts at `at`. */
function isQuantifier(source: string, at: number): boolean {
  const c = source[at];
  if (c === '*' || c === '+') return true;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
  if (!m) return false;
  if (m[2] === undefined) return Number(m[1]) > 1;
  return m[3] === '' || Number(m[3]) > 1;
}

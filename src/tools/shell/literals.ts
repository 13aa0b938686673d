/** Characters and literals of bash words: quote removal and what must not hide in a line. */

/** C0 controls but tab and newline, DEL, C1 controls, zero-width, bidi and other invisible formatting characters. */
export function hiddenChar(text: string): string | undefined {
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (
      (c < 0x20 && c !== 0x09 && c !== 0x0a) ||
      (c >= 0x7f && c <= 0x9f) ||
      c === 0xad ||
      (c >= 0x200b && c <= 0x200f) ||
      (c >= 0x2028 && c <= 0x202e) ||
      (c >= 0x2060 && c <= 0x206f) ||
      c === 0xfeff
    ) {
      return ch;
    }
  }
  return undefined;
}

const STATIC_DQ_ESCAPES = new Set(['$', '`', '"', '\\']);

export function hex(c: string): string {
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * An unquoted literal: backslash escapes removed; `pattern` when it holds glob,
 * brace or tilde syntax; `operator` when a backslash hides a shell operator in it.
 */
export function unquoted(
  raw: string,
  first: boolean,
): { value: string; pattern: boolean; operator: boolean } {
  let value = '';
  let pattern = first && raw.startsWith('~');
  let operator = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\' && i + 1 < raw.length) {
      if (';&|<>()'.includes(raw[i + 1]!)) operator = true;
      value += raw[++i];
      continue;
    }
    if ('*?[{'.includes(c)) pattern = true;
    value += c;
  }
  return { value, pattern, operator };
}

/** A literal inside double quotes: only `\$ \` \" \\` are escapes there. */
export function doubleQuoted(raw: string): string {
  let value = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\' && STATIC_DQ_ESCAPES.has(raw[i + 1] ?? '')) value += raw[++i];
    else value += c;
  }
  return value;
}

/**
 * Colours of the terminal UI as plain ANSI SGR codes (no colour library: the TUI is
 * in the start-up path of `tea`, and a handful of codes is all it needs). Every helper
 * closes what it opens, because pi-tui resets styles at the end of each line.
 */
import type { EditorTheme, MarkdownTheme, SelectListTheme } from '@mariozechner/pi-tui';

const sgr =
  (open: string, close: string) =>
  (s: string): string =>
    `\u001b[${open}m${s}\u001b[${close}m`;

export const bold = sgr('1', '22');
export const dim = sgr('2', '22');
export const italic = sgr('3', '23');
export const underline = sgr('4', '24');
export const strike = sgr('9', '29');
export const red = sgr('31', '39');
export const green = sgr('32', '39');
export const yellow = sgr('33', '39');
export const blue = sgr('34', '39');
export const magenta = sgr('35', '39');
export const cyan = sgr('36', '39');
export const gray = sgr('90', '39');
export const inverse = sgr('7', '27');

export const selectTheme: SelectListTheme = {
  selectedPrefix: cyan,
  selectedText: (s) => bold(cyan(s)),
  description: gray,
  scrollInfo: gray,
  noMatch: yellow,
};

export const editorTheme: EditorTheme = { borderColor: gray, selectList: selectTheme };

/**
 * The Markdown theme; `highlight` colours a fenced code block's lines (highlight.ts,
 * loaded after the first frame; until then code is shown in one colour).
 */
export function markdownTheme(highlight?: (code: string, lang?: string) => string[]): MarkdownTheme {
  return {
    heading: (s) => bold(cyan(s)),
    link: (s) => underline(blue(s)),
    linkUrl: gray,
    code: yellow,
    codeBlock: (s) => s,
    // pi-tui passes the fence itself (```ts, ```): drawn as a rule with the language.
    codeBlockBorder: (s) =>
      gray(s.replace(/^(```|~~~)\s*(\S*).*$/, (_m, _f, lang: string) => (lang ? `── ${lang}` : '──'))),
    quote: italic,
    quoteBorder: gray,
    hr: gray,
    listBullet: cyan,
    bold,
    italic,
    strikethrough: strike,
    underline,
    ...(highlight ? { highlightCode: highlight } : {}),
  };
}

/**
 * The terminal UI's first frame, drawn by bin/tea.js before the CLI bundle (2 MB) and
 * pi-tui load: the banner, an empty input box and the status line `starting…`, as raw
 * ANSI in exactly the layout pi-tui draws next (test/cli/tui/first-frame.test.ts
 * compares the two cell by cell at every width). The cursor is left at the frame's top
 * left, so pi-tui's first frame is drawn over it in place. The terminal goes into raw
 * mode at once, so keys typed meanwhile are not echoed over the frame: they wait in the
 * terminal (stdin is not read here) and reach the input box.
 *
 * Built on its own into dist/first-frame.cjs (scripts/build.mjs): no imports, so that
 * requiring it costs next to nothing.
 */
import { isatty } from 'node:tty';

export const BANNER_TITLE = 'Tea Agent';
export const BANNER_HINT =
  'Enter sends · Shift+Enter/Ctrl-J new line · Esc interrupts · Ctrl-C twice exits · /help';
export const STARTING = 'starting…';

/** Where bin/tea.js leaves word that the first frame is on the screen (screen.ts reads it). */
export const FIRST_FRAME = Symbol.for('tea.tui.firstFrame');

export interface FirstFrameMark {
  /** Lines drawn; the cursor is on the first of them. */
  lines: number;
  /** performance.now() when it was written (bench/tui.ts reads it). */
  at: number;
  /** Set once pi-tui has taken the screen over. */
  taken?: boolean;
}

/**
 * Whether the terminal can have the full-screen UI: stdin and stdout are terminals, TERM
 * names one (set, and not `dumb`: nothing else says the screen can be redrawn in place)
 * and `TEA_TUI=0` does not ask for the plain line loop.
 */
export function terminalWantsTui(env: NodeJS.ProcessEnv, stdinTty: boolean, stdoutTty: boolean): boolean {
  if (env.TEA_TUI === '0' || !stdinTty || !stdoutTty) return false;
  return env.TERM !== undefined && env.TERM !== '' && env.TERM !== 'dumb';
}

const ESC = '\u001b[';
const sgr = (open: string, close: string, s: string): string => `${ESC}${open}m${s}${ESC}${close}m`;

/**
 * `text` broken at spaces into lines of at most `width` columns (every character of the
 * banner is one column wide); a word longer than the width is cut.
 */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (candidate.length <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    let rest = word;
    while (rest.length > width) {
      lines.push(rest.slice(0, width));
      rest = rest.slice(width);
    }
    line = rest;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The frame's lines at `width` (≥ 20) columns, each as styled text (no line breaks). */
export function firstFrameLines(version: string, width: number): string[] {
  const rule = sgr('90', '39', '─'.repeat(width));
  return [
    `${sgr('1', '22', sgr('36', '39', BANNER_TITLE))} ${sgr('2', '22', version)}`,
    ...wrapWords(BANNER_HINT, width).map((l) => sgr('2', '22', l)),
    rule,
    sgr('7', '27', ' '),
    rule,
    sgr('33', '39', STARTING),
  ];
}

/**
 * Draws the first frame when `tea` (no arguments) will run the full-screen UI, and leaves
 * the mark screen.ts looks for. Returns whether it drew.
 */
export function drawFirstFrame(version: string): boolean {
  if (!terminalWantsTui(process.env, isatty(0), isatty(1))) return false;
  const out = process.stdout;
  const width = out.columns ?? 0;
  const lines = firstFrameLines(version, width);
  // Too small to hold the frame with room to spare: pi-tui alone draws it.
  if (width < 20 || (out.rows ?? 0) < lines.length + 2) return false;
  // Keys typed from now on are not echoed over the frame: they wait, unread, for the input box.
  process.stdin.setRawMode(true);
  // Cursor hidden (pi-tui draws its own), synchronized output, lines, back to the top left.
  out.write(`${ESC}?25l${ESC}?2026h${lines.join('\r\n')}${ESC}?2026l\r${ESC}${lines.length - 1}A`);
  const mark: FirstFrameMark = { lines: lines.length, at: performance.now() };
  (globalThis as Record<symbol, unknown>)[FIRST_FRAME] = mark;
  // Should tea stop before pi-tui takes over: below the frame, cursor shown again.
  process.once('exit', () => {
    if (mark.taken) return;
    process.stdin.setRawMode(false);
    out.write(`${ESC}${lines.length - 1}B\r\n${ESC}?25h`);
  });
  return true;
}

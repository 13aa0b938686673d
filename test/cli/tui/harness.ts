/**
 * Drives the BUILT `tea` (bin/tea.js → dist/) in a real pseudo-terminal (node-pty) of a
 * fixed size, and reads the screen as text through a terminal emulator
 * (@xterm/headless). No sleeps: every wait is on screen content or the process's exit.
 * Each test saves its last screen to test-artifacts/tui/<name>.txt.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import xterm from '@xterm/headless';
import * as pty from 'node-pty';
import { TEA_BIN } from '../../support/cli.js';

export const ARTIFACTS = path.resolve(import.meta.dirname, '..', '..', '..', 'test-artifacts', 'tui');

/** Keys as a terminal sends them. */
export const KEYS = {
  enter: '\r',
  escape: '\u001b',
  ctrlC: '\u0003',
  ctrlD: '\u0004',
  ctrlO: '\u000f',
  ctrlT: '\u0014',
  ctrlJ: '\n',
  altEnter: '\u001b\r',
  tab: '\t',
  shiftTab: '\u001b[Z',
  up: '\u001b[A',
  down: '\u001b[B',
  backspace: '\u007f',
} as const;

export type KeyName = keyof typeof KEYS;

export interface TuiOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  args?: string[];
  cols?: number;
  rows?: number;
  /** How long any one wait may take before the test fails with the screen (default 15 s). */
  timeoutMs?: number;
}

export interface TuiRun {
  /** The visible screen, one line per row, right-trimmed. */
  screen(): string;
  /** Everything written, scrollback included (what scrolled off the top too). */
  all(): string;
  /** The bytes written so far, escape sequences and all. */
  raw(): string;
  /** Waits until the screen (or scrollback) shows `text` (a string or a pattern). */
  waitForText(text: string | RegExp, opts?: { timeoutMs?: number }): Promise<void>;
  /** Waits until `text` is no longer visible. */
  waitForGone(text: string | RegExp): Promise<void>;
  /**
   * The foreground colour of the first cell of `text` on the screen: a palette index
   * (0-255), -1 for the default colour, undefined when `text` is not shown.
   */
  colourOf(text: string): number | undefined;
  /** Types text as keystrokes (one write). */
  type(text: string): void;
  press(key: KeyName): void;
  resize(cols: number, rows: number): void;
  /** Resolves with the exit code once the process has ended. */
  exited(): Promise<number>;
  /** Saves the screen to test-artifacts/tui/<name>.txt and ends the process if it still runs. */
  finish(name: string): Promise<void>;
}

const matches = (hay: string, text: string | RegExp): boolean =>
  typeof text === 'string' ? hay.includes(text) : text.test(hay);

export function startTui(opts: TuiOptions): TuiRun {
  const cols = opts.cols ?? 100;
  const rows = opts.rows ?? 30;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 5000 });
  const proc = pty.spawn(process.execPath, [TEA_BIN, ...(opts.args ?? [])], {
    // node-pty sets TERM to this name.
    name: opts.env.TERM ?? 'xterm-256color',
    cols,
    rows,
    cwd: opts.cwd,
    env: opts.env as Record<string, string>,
  });
  const listeners = new Set<() => void>();
  let exitCode: number | undefined;
  const exitWaiters: Array<(code: number) => void> = [];
  let written = '';
  proc.onData((d) => {
    written += d;
    term.write(d, () => {
      for (const l of [...listeners]) l();
    });
  });
  proc.onExit(({ exitCode: code }) => {
    exitCode = code;
    // Let the emulator take the last bytes before anyone reads the screen.
    term.write('', () => {
      for (const w of exitWaiters.splice(0)) w(code);
      for (const l of [...listeners]) l();
    });
  });
  const lines = (from: number, to: number): string => {
    const buf = term.buffer.active;
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(buf.getLine(i)?.translateToString(true) ?? '');
    return out.join('\n');
  };
  const screen = (): string => lines(term.buffer.active.viewportY, term.buffer.active.viewportY + term.rows);
  const all = (): string => lines(0, term.buffer.active.length);
  const waitFor = (check: () => boolean, what: string, ms = timeoutMs): Promise<void> =>
    new Promise((resolve, reject) => {
      if (check()) {
        resolve();
        return;
      }
      const listener = (): void => {
        if (!check()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`TUI: timed out waiting for ${what}; screen:\n${screen()}`));
      }, ms);
      const cleanup = (): void => {
        clearTimeout(timer);
        listeners.delete(listener);
      };
      listeners.add(listener);
    });
  return {
    screen,
    all,
    raw: () => written,
    waitForText: (text, o = {}) => waitFor(() => matches(all(), text), String(text), o.timeoutMs),
    waitForGone: (text) => waitFor(() => !matches(screen(), text), `${String(text)} to go`),
    colourOf(text) {
      const buf = term.buffer.active;
      for (let y = buf.viewportY; y < buf.viewportY + term.rows; y++) {
        const line = buf.getLine(y);
        if (!line) continue;
        const at = line.translateToString(true).indexOf(text);
        if (at < 0) continue;
        // Columns of wide characters count twice: find the cell whose text starts the match.
        let col = 0;
        for (let x = 0, chars = 0; x < term.cols; x++) {
          if (chars >= at) {
            col = x;
            break;
          }
          chars += line.getCell(x)?.getChars().length ?? 0;
        }
        const cell = line.getCell(col);
        if (!cell) return undefined;
        return cell.isFgDefault() ? -1 : cell.getFgColor();
      }
      return undefined;
    },
    type: (text) => proc.write(text),
    press: (key) => proc.write(KEYS[key]),
    resize: (c, r) => {
      proc.resize(c, r);
      term.resize(c, r);
    },
    exited: () =>
      new Promise((resolve, reject) => {
        if (exitCode !== undefined) {
          resolve(exitCode);
          return;
        }
        const timer = setTimeout(
          () => reject(new Error(`TUI: did not exit; screen:\n${screen()}`)),
          timeoutMs,
        );
        exitWaiters.push((code) => {
          clearTimeout(timer);
          resolve(code);
        });
      }),
    async finish(name) {
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(path.join(ARTIFACTS, `${name}.txt`), `${screen()}\n`);
      if (exitCode === undefined) {
        proc.kill();
        await new Promise<void>((resolve) => exitWaiters.push(() => resolve()));
      }
      term.dispose();
    },
  };
}

/**
 * The screen's own keys, seen before the focused component: Esc interrupts a running
 * turn, Ctrl-C clears the input (twice within EXIT_WINDOW_MS exits), Ctrl-D on an
 * empty input exits, Alt+Enter queues a follow-up while a turn runs, Ctrl-O and
 * Ctrl-T open tool outputs and thinking, Shift+Tab cycles
 * work modes. The clock is injected (tests, no sleeps).
 */
import { Key, matchesKey } from '@mariozechner/pi-tui';

export const EXIT_WINDOW_MS = 1000;

export interface KeyTarget {
  /** A turn is running. */
  busy(): boolean;
  /** The input box has the keys (no approval, question or picker open). */
  editing(): boolean;
  /** The completion list is open (Esc closes it instead). */
  completing(): boolean;
  text(): string;
  clearText(): void;
  interrupt(): void;
  followUp(text: string): void;
  toggleTools(): void;
  toggleThinking(): void;
  /** Shift+Tab: the next work mode. */
  cycleMode(): void;
  /** Shows (or hides, with undefined) a one-line hint, e.g. "Ctrl-C again to exit". */
  hint(text: string | undefined): void;
  exit(): void;
}

/** The listener for `TUI.addInputListener`: `{ consume: true }` for the keys it handles. */
export function screenKeys(
  target: KeyTarget,
  now: () => number = Date.now,
): (data: string) => { consume: boolean } | undefined {
  let lastCtrlC = Number.NEGATIVE_INFINITY;
  return (data) => {
    if (matchesKey(data, Key.ctrl('c'))) {
      if (!target.editing()) return undefined; // the open view cancels
      const t = now();
      if (t - lastCtrlC <= EXIT_WINDOW_MS) {
        target.exit();
        return { consume: true };
      }
      lastCtrlC = t;
      if (target.text() !== '') target.clearText();
      else if (target.busy()) target.interrupt();
      target.hint('Ctrl-C again to exit');
      return { consume: true };
    }
    lastCtrlC = Number.NEGATIVE_INFINITY;
    target.hint(undefined);
    if (!target.editing()) return undefined;
    if (matchesKey(data, Key.escape) && target.busy() && !target.completing()) {
      target.interrupt();
      return { consume: true };
    }
    if (matchesKey(data, Key.ctrl('d')) && target.text() === '') {
      target.exit();
      return { consume: true };
    }
    if ((data === '\u001b\r' || matchesKey(data, Key.alt('enter'))) && target.busy()) {
      const text = target.text().trim();
      if (text) {
        target.clearText();
        target.followUp(text);
      }
      return { consume: true };
    }
    if (matchesKey(data, Key.shift('tab')) && !target.completing()) {
      target.cycleMode();
      return { consume: true };
    }
    if (matchesKey(data, Key.ctrl('o'))) {
      target.toggleTools();
      return { consume: true };
    }
    if (matchesKey(data, Key.ctrl('t'))) {
      target.toggleThinking();
      return { consume: true };
    }
    return undefined;
  };
}

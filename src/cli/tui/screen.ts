/**
 * The screen's layout, built and drawn before anything else is loaded: a banner, the
 * transcript, a live area (approvals, questions, pickers take the input's place),
 * the input box and the status line. `tea` shows this first frame while the runtime
 * (config, store, tools, models) is still being built.
 */
import {
  type Component,
  Container,
  Editor,
  type Focusable,
  isFocusable,
  ProcessTerminal,
  Text,
  TUI,
} from '@mariozechner/pi-tui';
import { VERSION } from '../version.js';
import { StatusLine } from './status.js';
import { bold, cyan, dim, editorTheme } from './theme.js';

export interface Screen {
  readonly tui: TUI;
  readonly transcript: Container;
  readonly live: Container;
  readonly editor: Editor;
  readonly status: StatusLine;
  readonly banner: Text;
  /** Puts `view` in place of the input box and gives it the keys, until `restore`. */
  show(view: Component): void;
  /** The input box again, with the keys. */
  restore(): void;
  /** Something changed: a frame is drawn soon (frames are coalesced). */
  changed(): void;
  /** Leaves the terminal as it was (cursor shown, raw mode off). */
  stop(): void;
}

export const BANNER_HINT =
  'Enter sends · Shift+Enter/Ctrl-J new line · Esc interrupts · Ctrl-C twice exits · /help';

/** Measured render times of each frame (ms), when TEA_TUI_FRAMES names a file (bench/tui.ts). */
export const frameTimes: number[] = [];

/** Builds the layout, starts the terminal and draws the first frame. */
export async function openScreen(): Promise<Screen> {
  const tui = new TUI(new ProcessTerminal());
  const banner = new Text(`${bold(cyan('Tea Agent'))} ${dim(VERSION)}\n${dim(BANNER_HINT)}`, 0, 0);
  const transcript = new Container();
  const live = new Container();
  const editor = new Editor(tui, editorTheme, { paddingX: 0 });
  const status = new StatusLine();
  status.info = { phase: 'starting…' };
  const inputArea = new Container();
  inputArea.addChild(editor);
  tui.addChild(banner);
  tui.addChild(transcript);
  tui.addChild(live);
  tui.addChild(inputArea);
  tui.addChild(status);
  tui.setFocus(editor);
  if (process.env.TEA_TUI_FRAMES) timeFrames(tui);
  tui.start();
  // The first frame is drawn on the next tick: wait for it before loading the rest.
  await new Promise<void>((resolve) => setImmediate(resolve));
  let stopped = false;
  return {
    tui,
    transcript,
    live,
    editor,
    status,
    banner,
    show(view) {
      live.clear();
      live.addChild(view);
      inputArea.clear();
      tui.setFocus(
        isFocusable(view) || 'handleInput' in view ? (view as Component & Partial<Focusable>) : null,
      );
      tui.requestRender();
    },
    restore() {
      live.clear();
      inputArea.clear();
      inputArea.addChild(editor);
      tui.setFocus(editor);
      tui.requestRender();
    },
    changed() {
      tui.requestRender();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      tui.stop();
    },
  };
}

/** Wraps the TUI's frame function to record how long each frame takes. */
function timeFrames(tui: TUI): void {
  const target = tui as unknown as { doRender: () => void };
  const original = target.doRender.bind(tui);
  target.doRender = () => {
    const t0 = performance.now();
    original();
    frameTimes.push(performance.now() - t0);
  };
}

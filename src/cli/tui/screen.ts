/**
 * The screen's layout, built and drawn before anything else is loaded: a banner, the
 * transcript, a live area (approvals, questions, pickers take the input's place),
 * the input box and the status line. `tea` shows this first frame while the runtime
 * (config, store, tools, models) is still being built.
 */
import {
  type Component,
  Container,
  type Focusable,
  isFocusable,
  ProcessTerminal,
  Text,
  TUI,
} from '@mariozechner/pi-tui';
import { VERSION } from '../version.js';
import { TeaEditor } from './editor.js';
import { BANNER_HINT, BANNER_TITLE, FIRST_FRAME, type FirstFrameMark, STARTING } from './first-frame.js';
import { StatusLine } from './status.js';
import { bold, cyan, dim, editorTheme } from './theme.js';

export interface Screen {
  readonly tui: TUI;
  readonly transcript: Container;
  /** What commands print while a turn runs, until it ends (notes.ts). */
  readonly notes: Container;
  /** Messages typed while a turn runs, until the model gets them (turns.ts). */
  readonly queued: Container;
  readonly live: Container;
  readonly editor: TeaEditor;
  readonly status: StatusLine;
  readonly banner: Text;
  /** Puts `view` in place of the input box and gives it the keys, until `restore`. */
  show(view: Component): void;
  /** The input box again, with the keys. */
  restore(): void;
  /** Something changed: a frame is drawn soon (frames are coalesced). */
  changed(): void;
  /**
   * Draws a clean last frame at once (empty input box, no completion list, no hint) and
   * leaves the terminal as it was (cursor shown, raw mode off).
   */
  stop(): void;
}

/**
 * What bench/tui.ts reads (written to the file TEA_TUI_FRAMES names): ms from process
 * start to the first frame, and the render time of each frame.
 */
export const frameLog: { firstFrameMs?: number; frames: number[]; marks: Record<string, number> } = {
  frames: [],
  marks: {},
};

/** The layout as first drawn (first-frame.ts draws the same before pi-tui loads). */
export function layout(tui: TUI) {
  const banner = new Text(`${bold(cyan(BANNER_TITLE))} ${dim(VERSION)}\n${dim(BANNER_HINT)}`, 0, 0);
  const transcript = new Container();
  const notes = new Container();
  const queued = new Container();
  const live = new Container();
  const editor = new TeaEditor(tui, editorTheme, { paddingX: 0 });
  const status = new StatusLine();
  status.info = { phase: STARTING };
  const inputArea = new Container();
  inputArea.addChild(editor);
  tui.addChild(banner);
  tui.addChild(transcript);
  tui.addChild(notes);
  tui.addChild(queued);
  tui.addChild(live);
  tui.addChild(inputArea);
  tui.addChild(status);
  tui.setFocus(editor);
  return { banner, transcript, notes, queued, live, editor, status, inputArea };
}

/** Builds the layout, starts the terminal and draws its first frame. */
export async function openScreen(): Promise<Screen> {
  const tui = new TUI(new ProcessTerminal());
  const { banner, transcript, notes, queued, live, editor, status, inputArea } = layout(tui);
  // The first frame is drawn on a timer: wait for it before loading the rest.
  const drawn = new Promise<void>((resolve) =>
    watchFrames(tui, resolve, Boolean(process.env.TEA_TUI_FRAMES)),
  );
  const early = (globalThis as Record<symbol, FirstFrameMark | undefined>)[FIRST_FRAME];
  if (early) {
    // bin/tea.js drew this frame already and left the cursor at its top: pi-tui draws
    // over it. Whatever it left is erased first, inside pi-tui's synchronized frame.
    early.taken = true;
    frameLog.marks.firstFrame = early.at;
    process.stdout.write('\u001b[?2026h\u001b[J');
    // Raw mode as bin/tea.js set it: off again, so pi-tui restores the cooked mode on exit.
    process.stdin.setRawMode(false);
  }
  tui.start();
  await drawn;
  let stopped = false;
  return {
    tui,
    transcript,
    notes,
    queued,
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
      // The frame left on the terminal: no "Ctrl-C again to exit", no `/quit` menu, no draft.
      live.clear();
      inputArea.clear();
      inputArea.addChild(editor);
      editor.setText('');
      status.info = { ...status.info, activity: undefined };
      tui.setFocus(null);
      renderNow(tui);
      tui.stop();
    },
  };
}

/** Draws a frame now instead of on pi-tui's timer (its private frame function, when there). */
function renderNow(tui: TUI): void {
  (tui as unknown as { doRender?: () => void }).doRender?.();
}

/**
 * Wraps the TUI's frame function (a private method of pi-tui 0.73: checked, so a
 * version without it only loses the timing) to say when the first frame is out and,
 * with `time`, how long each frame takes.
 */
function watchFrames(tui: TUI, first: () => void, time: boolean): void {
  const target = tui as unknown as { doRender?: () => void };
  const original = target.doRender?.bind(tui);
  if (!original) {
    first();
    return;
  }
  target.doRender = () => {
    const t0 = performance.now();
    original();
    if (time) {
      frameLog.frames.push(performance.now() - t0);
      frameLog.firstFrameMs ??= performance.now();
    }
    first();
  };
}

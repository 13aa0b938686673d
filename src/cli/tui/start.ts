/**
 * `tea` in a terminal: the full-screen UI. Its first frame is drawn before the rest
 * of the UI and the runtime are loaded (screen.ts), so it comes at once; this module
 * and all of tui/ are loaded only for this run, never for `tea -p` or a subcommand.
 */
import type { PromptFlags } from '../flags.js';
import { terminalWantsTui } from './first-frame.js';

/**
 * Whether `tea` (no -p, no words) gets the full-screen UI: the terminal can have it
 * (first-frame.ts, the same test bin/tea.js makes before drawing the first frame) and
 * `--plain` does not ask for the plain line loop.
 */
export function wantsTui(flags: { plain?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flags.plain) return false;
  return terminalWantsTui(env, process.stdin.isTTY === true, process.stdout.isTTY === true);
}

export async function runTui(flags: PromptFlags): Promise<number> {
  const started = performance.now();
  const { openScreen, frameLog } = await import('./screen.js');
  // Where the time to the first frame goes (bench/tui.ts prints it).
  frameLog.marks.tuiStart = started;
  frameLog.marks.libsLoaded = performance.now();
  const screen = await openScreen();
  try {
    const { runApp } = await import('./app.js');
    return await runApp(screen, flags);
  } finally {
    screen.stop();
    const file = process.env.TEA_TUI_FRAMES;
    if (file) (await import('node:fs')).writeFileSync(file, JSON.stringify(frameLog));
  }
}

/**
 * The first frame bin/tea.js draws before the bundle and pi-tui load (first-frame.ts):
 * the same cells as pi-tui's own first frame at every width, drawn over in place (one
 * banner, nothing left behind), keys typed meanwhile kept and not echoed over it, and
 * no early frame where the plain loop runs.
 */
import { type Terminal as PiTerminal, TUI } from '@mariozechner/pi-tui';
import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { firstFrameLines, terminalWantsTui, wrapWords } from '../../../src/cli/tui/first-frame.js';
import { layout } from '../../../src/cli/tui/screen.js';
import { VERSION } from '../../../src/cli/version.js';
import { NO_MEMORY_JOBS, useScriptedCli } from '../../support/cli.js';
import { startTui } from './harness.js';

/** A terminal for pi-tui that is never started: only `render(width)` is called (the editor reads rows). */
const idle = { rows: 30 } as PiTerminal;

/** Writes `lines` into an emulator `width` wide; resolves with one description per cell. */
async function cells(lines: string[], width: number): Promise<string[]> {
  const term = new xterm.Terminal({ cols: width, rows: lines.length + 1, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(lines.join('\r\n'), resolve));
  const out: string[] = [];
  const buf = term.buffer.active;
  for (let y = 0; y < lines.length; y++) {
    const line = buf.getLine(y);
    for (let x = 0; x < width; x++) {
      const cell = line?.getCell(x);
      const ch = cell?.getChars() || ' ';
      // A blank shows only its background and inversion; a character shows its style too.
      const style =
        ch === ' '
          ? `bg${cell?.getBgColor()} inv${cell?.isInverse()}`
          : `fg${cell?.getFgColor()}/${cell?.isFgDefault()} b${cell?.isBold()} d${cell?.isDim()} inv${cell?.isInverse()}`;
      out.push(`${y}:${x} ${ch} ${style}`);
    }
  }
  term.dispose();
  return out;
}

describe('the first frame drawn before pi-tui loads', () => {
  it('has the same cells as pi-tui’s first frame at every width from 20 to 160', async () => {
    const tui = new TUI(idle);
    layout(tui);
    for (let width = 20; width <= 160; width++) {
      const ours = firstFrameLines(VERSION, width);
      const theirs = tui.render(width);
      expect(ours.length, `lines at width ${width}`).toBe(theirs.length);
      expect(await cells(ours, width), `cells at width ${width}`).toEqual(await cells(theirs, width));
    }
  });

  it('wraps at spaces and cuts a word longer than the line', () => {
    expect(wrapWords('aa bb cc', 5)).toEqual(['aa bb', 'cc']);
    expect(wrapWords('abcdefgh ij', 3)).toEqual(['abc', 'def', 'gh', 'ij']);
    expect(wrapWords('a b', 80)).toEqual(['a b']);
  });

  it('is drawn only where the full-screen UI will run', () => {
    const term = { TERM: 'xterm-256color' };
    expect(terminalWantsTui(term, true, true)).toBe(true);
    expect(terminalWantsTui({ ...term, TEA_TUI: '0' }, true, true)).toBe(false);
    expect(terminalWantsTui({ TERM: 'dumb' }, true, true)).toBe(false);
    expect(terminalWantsTui({ TERM: '' }, true, true)).toBe(false);
    expect(terminalWantsTui({}, true, true)).toBe(false);
    expect(terminalWantsTui(term, false, true)).toBe(false);
    expect(terminalWantsTui(term, true, false)).toBe(false);
  });
});

const t = useScriptedCli('sk-test', { config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n` });

describe('the built tea in a terminal', () => {
  it('draws the frame before pi-tui starts, then pi-tui draws over it in place', async () => {
    const tui = startTui({ env: { ...t.ctx.env, TERM: 'xterm-256color' }, cwd: t.ctx.work, cols: 90 });
    await tui.waitForText('scripted-model');
    const raw = tui.raw();
    // pi-tui's start turns on bracketed paste; the early frame (banner, status) came before it.
    const piTuiStart = raw.indexOf('\u001b[?2004h');
    expect(piTuiStart).toBeGreaterThan(0);
    expect(raw.slice(0, piTuiStart)).toContain('Tea Agent');
    expect(raw.slice(0, piTuiStart)).toContain('starting…');
    const rows = tui
      .screen()
      .split('\n')
      .map((r) => r.trimEnd());
    expect(rows[0]).toBe(`Tea Agent ${VERSION}`);
    expect(rows.filter((r) => r.startsWith('Tea Agent'))).toHaveLength(1);
    expect(
      tui
        .all()
        .split('\n')
        .filter((r) => r.startsWith('Tea Agent')),
    ).toHaveLength(1);
    expect(tui.screen()).not.toContain('starting…');
    await tui.finish('first-frame');
  });

  it('keeps keys typed right after the early frame, without echoing them over it', async () => {
    const tui = startTui({ env: { ...t.ctx.env, TERM: 'xterm-256color' }, cwd: t.ctx.work, cols: 90 });
    await tui.waitForText('starting…');
    tui.type('early words');
    await tui.waitForText('scripted-model');
    await tui.waitForText('early words');
    const rows = tui
      .screen()
      .split('\n')
      .map((r) => r.trimEnd());
    expect(rows[0]).toBe(`Tea Agent ${VERSION}`);
    // Once, in the input box (between its borders), nowhere else.
    const at = rows.findIndex((r) => r.includes('early words'));
    expect(rows.filter((r) => r.includes('early words'))).toHaveLength(1);
    expect(rows[at - 1]).toMatch(/^─+$/);
    expect(rows[at + 1]).toMatch(/^─+$/);
    await tui.finish('first-frame-typeahead');
  });

  it('draws no early frame for the plain loop (TEA_TUI=0)', async () => {
    const tui = startTui({
      env: { ...t.ctx.env, TERM: 'xterm-256color', TEA_TUI: '0' },
      cwd: t.ctx.work,
      cols: 90,
    });
    await tui.waitForText('>');
    expect(tui.raw()).not.toContain('starting…');
    expect(tui.raw()).not.toContain('\u001b[?2026h');
    tui.press('ctrlD');
    expect(await tui.exited()).toBe(0);
    await tui.finish('first-frame-plain');
  });
});

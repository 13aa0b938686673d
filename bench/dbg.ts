import { Container, type Terminal, TUI } from '@mariozechner/pi-tui';
import { highlightCode } from '../src/cli/tui/highlight.js';
import { StreamingMarkdown } from '../src/cli/tui/stream-md.js';
import { markdownTheme } from '../src/cli/tui/theme.js';
import { longAnswer } from './tui.js';

const term: Terminal = {
  start() {},
  stop() {},
  write() {},
  get columns() {
    return 120;
  },
  get rows() {
    return 40;
  },
  moveBy() {},
  hideCursor() {},
  showCursor() {},
  clearLine() {},
  clearFromCursor() {},
  clearScreen() {},
  setTitle() {},
} as unknown as Terminal;
const tui = new TUI(term);
const box = new Container();
tui.addChild(box);
const md = new StreamingMarkdown(markdownTheme(highlightCode));
box.addChild(md);
const text = longAnswer(5000);
const times: number[] = [];
const renders: number[] = [];
const r = tui as unknown as { doRender(): void };
for (let i = 0; i < text.length; i += 600) {
  md.append(text.slice(i, i + 600));
  const t0 = performance.now();
  const lines = md.render(120);
  renders.push(performance.now() - t0);
  const t1 = performance.now();
  r.doRender();
  times.push(performance.now() - t1);
  void lines;
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  'fullRedraws',
  (tui as unknown as { fullRedraws: number }).fullRedraws,
  'frames',
  times.length,
  'doRender median',
  med(times).toFixed(2),
  'md.render median',
  med(renders).toFixed(2),
  'last',
  times.at(-1)!.toFixed(2),
);

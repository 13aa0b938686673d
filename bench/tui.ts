/**
 * The terminal UI (built CLI, in a real pseudo-terminal): time from spawn to the first
 * frame (median of N, beside `node -e 0` spawned the same way), and the time each frame
 * takes to render while a scripted 5,000-line Markdown answer streams (measured inside
 * tea: TEA_TUI_FRAMES names a file it writes its frame times to). Prints figures;
 * asserts nothing. Run alone: `npm run build && node --import tsx bench/tui.ts`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as pty from 'node-pty';
import { startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';
import { fmt, stats } from './startup.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const TEA = path.join(ROOT, 'bin', 'tea.js');
const RUNS = Number(process.env.TEA_BENCH_RUNS ?? 15);

/** Spawns `args` in a pty; resolves the ms until its output contains `text`, and the process. */
function until(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  text: string,
): Promise<{ ms: number; proc: pty.IPty; seen: () => string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    const t0 = performance.now();
    const proc = pty.spawn(process.execPath, args, {
      name: 'xterm-256color',
      cols: 120,
      rows: 40,
      cwd,
      env: env as Record<string, string>,
    });
    let done = false;
    proc.onData((d) => {
      out += d;
      if (!done && out.includes(text)) {
        done = true;
        resolve({ ms: performance.now() - t0, proc, seen: () => out });
      }
    });
    proc.onExit(() => {
      if (!done) reject(new Error(`exited before "${text}":\n${out}`));
    });
  });
}

/** Resolves once the output so far contains `text`. */
function shows(run: { proc: pty.IPty; seen: () => string }, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (run.seen().includes(text)) {
      resolve();
      return;
    }
    const sub = run.proc.onData(() => {
      if (!run.seen().includes(text)) return;
      sub.dispose();
      resolve();
    });
  });
}

const exited = (proc: pty.IPty): Promise<void> => new Promise((resolve) => proc.onExit(() => resolve()));

/** A Markdown answer of `lines` lines: paragraphs, lists, code blocks. */
export function longAnswer(lines: number): string {
  const out: string[] = [];
  for (let i = 0; out.length < lines; i++) {
    out.push(
      `## Section ${i}`,
      '',
      `Paragraph ${i} with **bold**, \`code\` and a [link](https://example.com/${i}).`,
      '',
    );
    out.push(`- item ${i}.1`, `- item ${i}.2 with *emphasis*`, '');
    out.push('```ts', `function f${i}(x: number): number {`, `  return x * ${i}; // line`, '}', '```', '');
  }
  out.length = lines - 1;
  out.push('THE END OF THE ANSWER');
  return out.join('\n');
}

export async function benchTui(): Promise<void> {
  const server = await startModelServer();
  const root = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-tui-'));
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(
    path.join(home, 'config.yaml'),
    'agent:\n  auto_title: false\nmemory:\n  extract: false\nevolve:\n  lessons: false\n  drafts: false\n',
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    TEA_HOME: home,
    TERM: 'xterm-256color',
    OLLAMA_HOST: 'http://127.0.0.1:9',
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: server.openaiBaseUrl,
    TEA_MODEL: 'scripted-model',
  };
  try {
    const first: number[] = [];
    const ready: number[] = [];
    const floor: number[] = [];
    /** Process start to first frame, as tea measured it (performance.now() at the frame). */
    const inside: number[] = [];
    /** Process start to pi-tui's first frame, drawn over bin/tea.js's. */
    const piTui: number[] = [];
    /** Process start to the TUI's code (node, the bundle, commander), and pi-tui's loading. */
    const toTui: number[] = [];
    const libs: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const n = await until(['-e', 'process.stdout.write("ready\\n")'], env, work, 'ready');
      await exited(n.proc);
      const framesFile = path.join(root, `first-${i}.json`);
      const run = await until([TEA], { ...env, TEA_TUI_FRAMES: framesFile }, work, 'starting…');
      const t0 = performance.now() - run.ms;
      await shows(run, 'scripted-model');
      const readyMs = performance.now() - t0;
      run.proc.write('\u0004');
      await exited(run.proc);
      // The first run writes the code cache: it is not counted.
      if (i === 0) continue;
      const log = JSON.parse(readFileSync(framesFile, 'utf8')) as {
        firstFrameMs: number;
        marks: Record<string, number>;
      };
      inside.push(log.marks.firstFrame ?? log.firstFrameMs);
      piTui.push(log.firstFrameMs);
      toTui.push(log.marks.tuiStart ?? 0);
      libs.push((log.marks.libsLoaded ?? 0) - (log.marks.tuiStart ?? 0));
      floor.push(n.ms);
      first.push(run.ms);
      ready.push(readyMs);
    }
    const f = stats(first);
    const r = stats(ready);
    const z = stats(floor);
    console.log(
      `tui: first frame ${fmt(f.median)} median, p90 ${fmt(f.p90)} (node in a pty: ${fmt(z.median)}; +${fmt(f.median - z.median)})  (target ≤ 150 ms)`,
    );
    console.log(
      `tui: first frame ${fmt(stats(inside).median)} median from process start, as tea measures it (bin/tea.js draws it before the bundle loads); pi-tui draws over it at ${fmt(stats(piTui).median)}: ${fmt(stats(toTui).median)} to the TUI code (node, bundle, commander), ${fmt(stats(libs).median)} loading pi-tui`,
    );
    console.log(`tui: ready (model in the status line) ${fmt(r.median)} median, p90 ${fmt(r.p90)}`);

    const lines = 5000;
    // 60 characters a chunk, 1 ms apart (~40,000 characters a second, a hundred times a
    // fast model): sent with no pause at all, the stream would hold the event loop until
    // it ends and the whole answer would be drawn in one frame.
    server.script(reply().text(longAnswer(lines)).chunkSize(60).chunkDelay(1));
    const framesFile = path.join(root, 'frames.json');
    const run = await until([TEA], { ...env, TEA_TUI_FRAMES: framesFile }, work, 'scripted-model');
    const t0 = performance.now();
    run.proc.write('write a long answer\r');
    await shows(run, 'THE END OF THE ANSWER');
    const streamMs = performance.now() - t0;
    run.proc.write('\u0004');
    await exited(run.proc);
    const frames = (JSON.parse(readFileSync(framesFile, 'utf8')) as { frames: number[] }).frames;
    const s = stats(frames);
    console.log(
      `tui: ${lines}-line streamed answer: ${frames.length} frames, frame time ${fmt(s.median)} median, p90 ${fmt(s.p90)} (whole answer ${fmt(streamMs)})  (target median ≤ 16 ms)`,
    );
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) await benchTui();

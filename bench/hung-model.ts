/**
 * A hung model with the default settings: how long until the user hears about it
 * (the first retry event), and until the call gives up. The model is the scripted
 * server answering every request with headers and then nothing, reached through
 * the real OpenAI-compatible adapter; the timers run on a fake clock, so minutes
 * of model time take milliseconds and the figures are exact (jitter drawn at its
 * middle). The settings before deadlines existed (120 s idle timeout, no call
 * deadline) are shown for comparison. Last, the built `tea -p` with a hung cheap
 * model (memory extraction after the answer), timed for real: how long the exit
 * waits after the answer.
 *
 * Run: `npm run build && node --import tsx bench/hung-model.ts`. Prints figures; asserts nothing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chainOptions } from '../src/agent/settings.js';
import { loadConfig } from '../src/config/load.js';
import { createModelChain, type ModelChainOptions } from '../src/llm/factory.js';
import type { ModelRequest } from '../src/llm/types.js';
import { FakeTimers } from '../test/support/fake-timers.js';
import { type ModelServer, startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const request: ModelRequest = { messages: [{ role: 'user', parts: [{ type: 'text', text: 'hello?' }] }] };

interface Figures {
  reportedMs: number | undefined;
  gaveUpMs: number;
  attempts: number;
  retryLines: string[];
}

async function hungCall(server: ModelServer, opts: ModelChainOptions): Promise<Figures> {
  server.reset();
  server.respond(() => reply().hangAfter(0));
  const timers = new FakeTimers();
  const chain = createModelChain(
    [
      {
        name: 'main_model',
        provider: 'openai',
        baseUrl: server.openaiBaseUrl,
        apiKey: 'sk-bench',
        model: 'hung',
      },
    ],
    { ...opts, timers, random: () => 0.5 },
  );
  const out: Figures = { reportedMs: undefined, gaveUpMs: 0, attempts: 0, retryLines: [] };
  await timers.run(
    (async () => {
      try {
        for await (const d of chain.stream(request)) {
          if (d.type !== 'retry') continue;
          out.reportedMs ??= timers.now();
          out.retryLines.push(`${(timers.now() / 1000).toFixed(1)} s: retry ${d.attempt}/${d.maxRetries}`);
        }
      } catch {
        // the give-up
      }
      out.gaveUpMs = timers.now();
    })(),
  );
  out.attempts = out.retryLines.length + 1; // counted here: the server may not have read the last one yet
  return out;
}

/** `tea -p` whose answer comes at once and whose cheap model (memory extraction) hangs. */
async function exitWithHungCheapModel(
  server: ModelServer,
): Promise<{ answerToExitMs: number; stderr: string }> {
  server.reset();
  server.script(reply().text('Noted.'));
  server.respond(() => reply().hang());
  const root = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-hung-'));
  try {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin', 'tea.js'), '-p', 'remember that I like green tea'],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          HOME: root,
          TEA_HOME: path.join(root, 'home'),
          OLLAMA_HOST: 'http://127.0.0.1:9',
          OPENAI_API_KEY: 'sk-bench',
          OPENAI_BASE_URL: server.openaiBaseUrl,
          TEA_MODEL: 'scripted-model',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let answeredAt = 0;
    let stderr = '';
    child.stdout.on('data', () => {
      answeredAt ||= performance.now();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    await new Promise((resolve) => child.on('close', resolve));
    return { answerToExitMs: performance.now() - answeredAt, stderr: stderr.trim() };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const s = (ms: number | undefined) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);

const home = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-home-'));
const server = await startModelServer();
try {
  const config = await loadConfig({ cwd: home, env: { TEA_HOME: home }, detectOllama: false });
  const now = chainOptions(config);
  const before: ModelChainOptions = { ...now, timeoutMs: 120_000, callTimeoutMs: 1e12, streamMaxMs: 1e12 };
  console.log('hung model (main chain, default settings; fake clock, exact):');
  console.log('  settings                                   reported   gave up   attempts');
  for (const [label, opts] of [
    ['before: timeout_s 120, no call deadline', before],
    [`now: timeout_s ${now.timeoutMs / 1000}, call_timeout_s ${(now.callTimeoutMs ?? 0) / 1000}`, now],
  ] as const) {
    const f = await hungCall(server, opts);
    console.log(
      `  ${label.padEnd(42)} ${s(f.reportedMs).padStart(8)}  ${s(f.gaveUpMs).padStart(8)}  ${String(f.attempts).padStart(8)}`,
    );
    console.log(`    ${f.retryLines.join(' · ')}`);
  }
  const cheap = await hungCall(server, chainOptions(config, { cheap: true }));
  console.log(`  cheap model chain (background jobs):        ${s(cheap.reportedMs)}  ${s(cheap.gaveUpMs)}`);

  console.log('\ntea -p with a hung cheap model (memory extraction after the answer; real time):');
  const exit = await exitWithHungCheapModel(server);
  console.log(`  exit ${s(exit.answerToExitMs)} after the answer`);
  console.log(`  stderr: ${exit.stderr}`);
} finally {
  await server.close();
  rmSync(home, { recursive: true, force: true });
}

/**
 * One long session through `tea serve` (the built CLI, in a child process so its RSS
 * is its own): TURNS turns of mixed English and Chinese against the scripted model,
 * each a non-streamed chat completion continuing the same `session_id`, with a
 * 3,000-line `read_file` every 25 turns. Prints the server's RSS and the turn
 * latency (median of the 10 turns up to the mark) at turns 1, 200 and 600. Target:
 * from the steady state after warm-up (turn 200) to turn 600, RSS grows ≤ 20%.
 * Prints figures; asserts nothing.
 *
 *   node --import tsx bench/long-session.ts     # TEA_BENCH_TURNS=600 TEA_BENCH_HEAP_MB=96 (a heap cap)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const TEA = path.join(ROOT, 'bin', 'tea.js');
const TURNS = Number(process.env.TEA_BENCH_TURNS ?? 600);
const HEAP_MB = process.env.TEA_BENCH_HEAP_MB;
const MARKS = [1, 200, 400, 600].filter((m) => m <= TURNS);
const TOPICS = [
  'parser',
  'database migration',
  '数据库迁移',
  'login page',
  '登录模块',
  'cache layer',
  '日志系统',
];

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

function startServe(home: string, work: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const heap = HEAP_MB ? [`--max-old-space-size=${HEAP_MB}`] : [];
    // TEA_BENCH_ENTRY=<file.ts> runs the sources (for profiles); TEA_BENCH_NODE_ARGS adds node flags.
    const extra = process.env.TEA_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const entry = process.env.TEA_BENCH_ENTRY ? ['--import', 'tsx', process.env.TEA_BENCH_ENTRY] : [TEA];
    const child = spawn(
      process.execPath,
      [...heap, ...extra, ...entry, 'serve', '--port', '0', '--rate-limit', '0', '--cwd', work],
      {
        env: {
          PATH: process.env.PATH,
          HOME: path.dirname(home),
          TEA_HOME: home,
          OLLAMA_HOST: 'http://127.0.0.1:9',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(stderr);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`tea serve exited ${code}: ${stderr}`)));
  });
}

function post(
  port: number,
  agent: http.Agent,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/chat/completions',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          data += d;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(data) as Record<string, unknown> }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/**
 * The model, by rule (background summaries may ask at any time): a turn's first call
 * answers, or on every 25th turn reads a big file first; anything else is a summary.
 */
function respond(body: Record<string, unknown>) {
  const messages = (body.messages ?? []) as Array<{ role: string; content?: unknown }>;
  const last = messages.at(-1);
  const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  const turn = /^Turn (\d+): please review the (.+?) work/.exec(text);
  if (last?.role === 'tool') return reply().text('The file looks fine; nothing changed.').usage(1500, 20);
  if (!turn)
    return reply().text('Summary: the modules were reviewed turn by turn; the tests pass.').usage(800, 30);
  const i = Number(turn[1]);
  if (i % 25 === 7) return reply().toolCall('read_file', { path: 'big.log' }).usage(1200, 20);
  return reply()
    .text(
      `Turn ${i}: reviewed the ${turn[2]} work. ${'Everything is consistent with the plan and the tests pass. '.repeat(4)}已完成检查。`,
    )
    .usage(1200, 60);
}

async function main(): Promise<void> {
  const model = await startModelServer();
  const root = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-long-'));
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(path.join(work, '.git'), { recursive: true });
  writeFileSync(
    path.join(work, 'big.log'),
    Array.from({ length: 3000 }, (_, i) => `line ${i + 1}: some log text here, request ${i * 7} ok`).join(
      '\n',
    ),
  );
  writeFileSync(
    path.join(home, 'config.yaml'),
    [
      `main_model: { base_url: ${model.openaiBaseUrl}, api_key: sk-bench, model: scripted-model, context_window: 32000 }`,
      'llm: { timeout_s: 120, max_retries: 0 }',
      'agent: { auto_title: false }',
      'memory: { extract: false, tune: false }',
    ].join('\n'),
  );
  model.respond(respond);
  const { child, port } = await startServe(home, work);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  console.log(
    `\nlong session: ${TURNS} turns of one session through tea serve${HEAP_MB ? `, heap cap ${HEAP_MB} MB` : ''}`,
  );
  console.log('  turn   server RSS   turn latency (median of the last 10)');
  try {
    let sessionId: string | undefined;
    const latencies: number[] = [];
    const rows: Array<{ turn: number; rss: number; latency: number }> = [];
    for (let i = 1; i <= TURNS; i++) {
      const topic = TOPICS[i % TOPICS.length]!;
      const input = `Turn ${i}: please review the ${topic} work again and tell me what changed in src/mod${i % 17}.ts. 请检查${topic}的进度。`;
      const t0 = performance.now();
      const res = await post(port, agent, {
        model: 'tea',
        messages: [{ role: 'user', content: input }],
        ...(sessionId ? { session_id: sessionId } : {}),
      });
      latencies.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`turn ${i}: HTTP ${res.status} ${JSON.stringify(res.json)}`);
      sessionId ??= res.json.session_id as string;
      if (MARKS.includes(i)) {
        const row = { turn: i, rss: rssMb(child.pid!), latency: median(latencies.slice(-10)) };
        rows.push(row);
        console.log(
          `  ${String(i).padStart(4)}   ${row.rss.toFixed(0).padStart(6)} MB   ${row.latency.toFixed(1).padStart(8)} ms`,
        );
      }
    }
    const steady = rows.find((r) => r.turn === 200);
    const last = rows.at(-1);
    if (steady && last && last !== steady) {
      const growth = ((last.rss - steady.rss) / steady.rss) * 100;
      console.log(
        `  RSS ${steady.turn} → ${last.turn}: ${growth >= 0 ? '+' : ''}${growth.toFixed(0)}% (target ≤ +20%)`,
      );
    }
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await model.close();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();

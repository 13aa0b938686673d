import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';

const TEA = process.env.TEA_BENCH_ENTRY ?? path.resolve(import.meta.dirname, '..', 'bin', 'tea.js');
const server = await startModelServer();
const home = mkdtempSync(path.join(os.tmpdir(), 'tea-sb-'));
const work = mkdtempSync(path.join(os.tmpdir(), 'tea-sbw-'));
const env = {
  ...process.env,
  TEA_HOME: home,
  OPENAI_API_KEY: 'sk',
  OPENAI_BASE_URL: server.openaiBaseUrl,
  TEA_MODEL: 'm',
};
const first: number[] = [];
const base: number[] = [];
const total: number[] = [];
const extra = (process.env.TEA_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
for (let i = 0; i < 12; i++) {
  const b0 = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  base.push(performance.now() - b0);
  server.script(reply().text('ok').usage(10, 1), reply().text('[]').usage(50, 1));
  const before = server.requests.length;
  const t0 = Date.now();
  await new Promise<void>((res) => {
    const c = spawn(process.execPath, [...extra, TEA, '-p', 'hello', '--cwd', work], {
      env,
      stdio: 'ignore',
    });
    c.on('exit', () => res());
  });
  total.push(Date.now() - t0);
  first.push(server.requests[before]!.at - t0);
}
const med = (x: number[]) => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)]!.toFixed(1);
console.log(`node -e 0 ${med(base)}  first request ${med(first)}  total ${med(total)}`);
await server.close();

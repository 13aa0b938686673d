import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';

const TEA = path.resolve(import.meta.dirname, '..', 'bin', 'tea.js');
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
for (let i = 0; i < 3; i++) {
  server.script(reply().text('ok').usage(10, 1), reply().text('[]').usage(50, 1));
  const t0 = Date.now();
  const before = server.requests.length;
  const args = i === 2 ? ['--cpu-prof', '--cpu-prof-dir=/tmp/sb', '--cpu-prof-interval=200'] : [];
  await new Promise<void>((res) => {
    const c = spawn(process.execPath, [...args, TEA, '-p', 'hello', '--cwd', work], {
      env,
      stdio: 'inherit',
    });
    c.on('exit', () => res());
  });
  console.log('first', server.requests[before]!.at - t0);
}
await server.close();

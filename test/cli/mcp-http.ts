import { type ChildProcess, spawn } from 'node:child_process';
import { TEA_BIN } from '../support/cli.js';

/** Starts `tea mcp serve --http --port 0 …` and reads the URL from its stderr. */
export async function startMcpHttp(
  env: NodeJS.ProcessEnv,
  args: string[],
): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [TEA_BIN, 'mcp', 'serve', '--http', '--port', '0', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /tea mcp serve: listening on (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`tea mcp serve exited (${code}): ${err}`)));
  });
  return { child, url, exited };
}

/** Fixtures for the shell sandbox tests: real directories, a fake home, a loopback server. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';

/** The sandbox tests need bubblewrap on Linux (CI installs it: .ci/run). */
export const ON_LINUX = process.platform === 'linux';

/** Fails loudly (instead of skipping) when bwrap is missing on Linux. */
export function requireBwrap(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('bubblewrap (bwrap) is not installed: apt-get install bubblewrap (see .ci/run)');
  }
}

/**
 * A real directory outside /tmp (the sandbox gives /tmp a private tmpfs, so a fake
 * home under /tmp would be hidden for that reason alone and prove nothing).
 */
export function outsideTmp(prefix: string): { dir: string; cleanup(): void } {
  const dir = realpathSync(mkdtempSync(path.join('/var/tmp', prefix)));
  if (dir.startsWith('/tmp/')) throw new Error(`/var/tmp resolves into /tmp here (${dir})`);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const FAKE_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nfake-key-material-0123456789\n';

/** A home directory with credentials in the usual places and a `.bashrc`. */
export function makeFakeHome(root: string): string {
  const home = path.join(root, 'home');
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  mkdirSync(path.join(home, '.aws'), { recursive: true });
  mkdirSync(path.join(home, '.tea'), { recursive: true });
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), FAKE_KEY);
  writeFileSync(path.join(home, '.aws', 'credentials'), '[default]\naws_secret_access_key = fake\n');
  writeFileSync(path.join(home, '.netrc'), 'machine example.com login me password fake-netrc-pw\n');
  writeFileSync(path.join(home, '.tea', 'config.yaml'), 'main_model: { api_key: sk-fake-tea-config }\n');
  writeFileSync(path.join(home, '.bashrc'), '# the real bashrc\n');
  return home;
}

/** An HTTP server on 127.0.0.1 that counts the requests it gets. */
export async function loopbackServer(): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    res.end('hello from loopback');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    hits: () => hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

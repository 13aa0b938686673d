import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileNameFromUrl } from '../../src/tools/builtin/web-download.js';
import { runWeb, startServer, tempDir } from './web-fixtures.js';

const BYTES = Buffer.from(Array.from({ length: 1024 }, (_, i) => i % 256));

/** All names under `dir`, recursively, sorted (to catch leftover temp files). */
async function listAll(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

describe('download_file', () => {
  it('saves a URL into the workspace, creating directories, with no temp file left', async () => {
    const server = await startServer((req, res) => {
      if (req.path === '/old') return res.writeHead(302, { location: '/files/data.bin' }).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(BYTES);
    });
    const cwd = await tempDir();
    const r = await runWeb('download_file', { url: `${server.url}/old`, path: 'data/blob.bin' }, { cwd });
    expect(r.output).toBe(
      `Saved data/blob.bin (1.0 KB, application/octet-stream) from ${server.url}/old (redirected to ${server.url}/files/data.bin)`,
    );
    expect(await readFile(join(cwd, 'data', 'blob.bin'))).toEqual(BYTES);
    expect(await listAll(cwd)).toEqual(['data', 'data/blob.bin']);
  });

  it("keeps the URL's file name when the path is a directory", async () => {
    const server = await startServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/csv' }).end('a,b\n'),
    );
    const cwd = await tempDir();
    await mkdir(join(cwd, 'in'));
    const r = await runWeb(
      'download_file',
      { url: `${server.url}/exports/report%20v1.csv?x=1`, path: 'in' },
      { cwd },
    );
    expect(r.output).toMatch(/^Saved in\/report v1\.csv \(4 B, text\/csv\) from /);
    expect(await readFile(join(cwd, 'in', 'report v1.csv'), 'utf8')).toBe('a,b\n');
    expect(fileNameFromUrl(new URL('http://h/'))).toBe('download');
    expect(fileNameFromUrl(new URL('http://h/a/..%2F..%2Fetc%2Fpasswd'))).toBe('.._.._etc_passwd');
  });

  it('refuses to overwrite unless asked', async () => {
    const server = await startServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('new'),
    );
    const cwd = await tempDir();
    await writeFile(join(cwd, 'f.txt'), 'old');
    const refused = await runWeb('download_file', { url: server.url, path: 'f.txt' }, { cwd });
    expect(refused.output).toBe(
      '[ERROR] f.txt already exists\nHint: pass overwrite=true to replace it, or choose another path',
    );
    expect(server.requests).toHaveLength(0);
    expect(await readFile(join(cwd, 'f.txt'), 'utf8')).toBe('old');

    const replaced = await runWeb(
      'download_file',
      { url: server.url, path: 'f.txt', overwrite: true },
      { cwd },
    );
    expect(replaced.output).toMatch(/^Saved f\.txt \(3 B, text\/plain\)/);
    expect(await readFile(join(cwd, 'f.txt'), 'utf8')).toBe('new');
  });

  it('refuses paths outside the workspace without touching the network', async () => {
    const server = await startServer((_req, res) => res.end('x'));
    const cwd = await tempDir();
    const r = await runWeb('download_file', { url: server.url, path: '../escape.bin' }, { cwd });
    expect(r.output).toMatch(/^\[ERROR\] Path "\.\.\/escape\.bin" is outside the workspace/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses to write into .git internals', async () => {
    const server = await startServer((_req, res) => res.end('x'));
    const cwd = await tempDir();
    const r = await runWeb('download_file', { url: server.url, path: '.git/hooks/pre-commit' }, { cwd });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/\.git/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses files over the size limit, declared or streamed, and leaves nothing behind', async () => {
    const server = await startServer((req, res) => {
      if (req.path === '/declared') {
        res.writeHead(200, { 'content-type': 'application/zip', 'content-length': '5000' });
        return res.end(Buffer.alloc(5000));
      }
      res.writeHead(200, { 'content-type': 'application/zip' }); // chunked, no length
      res.write(Buffer.alloc(3000));
      res.end(Buffer.alloc(3000));
    });
    const cwd = await tempDir();
    const tools = { maxFileBytes: 4000 };
    const declared = await runWeb(
      'download_file',
      { url: `${server.url}/declared`, path: 'a.zip' },
      { cwd, tools },
    );
    expect(declared.output).toBe(
      `[ERROR] ${server.url}/declared is larger than the 3.9 KB download limit; nothing was saved\nHint: download it with bash (curl -o) if the user agrees to a larger file`,
    );
    const streamed = await runWeb(
      'download_file',
      { url: `${server.url}/streamed`, path: 'b.zip' },
      { cwd, tools },
    );
    expect(streamed.output).toMatch(/^\[ERROR\] .*\/streamed is larger than the 3\.9 KB download limit/);
    expect(await listAll(cwd)).toEqual([]);
  });

  it('does not save error pages or non-http URLs', async () => {
    const server = await startServer((_req, res) =>
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>nope</h1>'),
    );
    const cwd = await tempDir();
    const missing = await runWeb(
      'download_file',
      { url: `${server.url}/gone.zip`, path: 'gone.zip' },
      { cwd },
    );
    expect(missing.output).toBe(
      `[ERROR] Download failed: ${server.url}/gone.zip answered HTTP 404 Not Found; nothing was saved\nHint: check the URL; web_fetch shows the error page`,
    );
    const scheme = await runWeb('download_file', { url: 'file:///etc/hostname', path: 'h.txt' }, { cwd });
    expect(scheme.output).toMatch(/^\[ERROR\] Only http and https URLs are supported, not "file:"/);
    expect(await listAll(cwd)).toEqual([]);
  });
});

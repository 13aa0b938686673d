import { mkdir, readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runFile, snapshot } from './files-helpers.js';
import { tempDir, writeTree } from './helpers.js';

const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `row ${i + 1}`).join('\n');

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A real, decodable RGB PNG of the given size (all red). */
function tinyPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0)]);
  for (let x = 0; x < width; x++) row[1 + x * 3] = 255;
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('read_file', () => {
  it('numbers lines cat -n style', async () => {
    const cwd = await writeTree(await tempDir(), { 'a.txt': 'alpha\nbeta\r\ngamma\n' });
    const r = await runFile(cwd, 'read_file', { path: 'a.txt' });
    expect(r).toEqual({ output: '     1\talpha\n     2\tbeta\n     3\tgamma', isError: false, status: 'ok' });
  });

  it('reads a range and says where to continue', async () => {
    const cwd = await writeTree(await tempDir(), { 'big.txt': `${numbered(3000)}\n` });
    const unlimited = { tools: { readMaxChars: 1_000_000 }, run: { maxOutputChars: 1_000_000 } };
    const first = await runFile(cwd, 'read_file', { path: 'big.txt' }, unlimited);
    const lines = first.output.split('\n');
    expect(lines).toHaveLength(2001);
    expect(lines[1999]).toBe('  2000\trow 2000');
    expect(lines[2000]).toBe('… 1000 more lines; call again with offset=2001');

    const middle = await runFile(cwd, 'read_file', { path: 'big.txt', offset: 10, limit: 3 });
    expect(middle.output).toBe(
      '    10\trow 10\n    11\trow 11\n    12\trow 12\n… 2988 more lines; call again with offset=13',
    );
    const tail = await runFile(cwd, 'read_file', { path: 'big.txt', offset: 2999 });
    expect(tail.output).toBe('  2999\trow 2999\n  3000\trow 3000');

    const paged = await runFile(cwd, 'read_file', { path: 'big.txt' });
    const last = paged.output.split('\n').at(-1)!;
    const next = Number(/offset=(\d+)$/.exec(last)![1]);
    expect(last).toBe(
      `… ${3001 - next} more lines (output size limit reached); call again with offset=${next}`,
    );
    expect(paged.output.length).toBeLessThanOrEqual(28_100);
  });

  it('stops at the output budget and cuts very long lines', async () => {
    const cwd = await writeTree(await tempDir(), {
      'wide.txt': Array(100).fill('y'.repeat(90)).join('\n'),
      'long.txt': `${'z'.repeat(5000)}\nshort`,
    });
    const r = await runFile(cwd, 'read_file', { path: 'wide.txt' }, { tools: { readMaxChars: 1000 } });
    expect(r.output.split('\n')).toHaveLength(11);
    expect(r.output.split('\n').at(-1)).toBe(
      '… 90 more lines (output size limit reached); call again with offset=11',
    );
    const long = await runFile(cwd, 'read_file', { path: 'long.txt' });
    expect(long.output.split('\n')).toEqual([
      `     1\t${'z'.repeat(2000)}… [line truncated, 3000 more chars]`,
      '     2\tshort',
    ]);
  });

  it('returns a PNG as an image part with its dimensions', async () => {
    const png = tinyPng(2, 3);
    const cwd = await writeTree(await tempDir(), { 'img/dot.png': png });
    const r = await runFile(cwd, 'read_file', { path: 'img/dot.png' });
    expect(r.status).toBe('ok');
    expect(r.output).toBe(`image img/dot.png (2x3, ${png.length} bytes)`);
    expect(r.images).toEqual([{ type: 'image', mediaType: 'image/png', data: png.toString('base64') }]);
  });

  it('recognises gif, jpeg and webp by magic bytes, whatever the extension', async () => {
    const gif = Buffer.concat([
      Buffer.from('GIF89a'),
      Buffer.from([5, 0, 7, 0, 0x80, 0, 0]),
      Buffer.alloc(8),
    ]);
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x21, 0x00, 0x2c,
      0x03, 0x01, 0x22, 0x00, 0xff, 0xd9,
    ]);
    const vp8x = Buffer.alloc(30);
    vp8x.write('RIFF', 0, 'ascii');
    vp8x.writeUInt32LE(22, 4);
    vp8x.write('WEBPVP8X', 8, 'ascii');
    vp8x.writeUIntLE(640 - 1, 24, 3);
    vp8x.writeUIntLE(480 - 1, 27, 3);
    const cwd = await writeTree(await tempDir(), { 'a.bin': gif, 'photo.dat': jpeg, 'w.webp': vp8x });
    const a = await runFile(cwd, 'read_file', { path: 'a.bin' });
    expect(a.output).toBe(`image a.bin (5x7, ${gif.length} bytes)`);
    expect(a.images?.[0]?.mediaType).toBe('image/gif');
    const j = await runFile(cwd, 'read_file', { path: 'photo.dat' });
    expect(j.output).toBe(`image photo.dat (44x33, ${jpeg.length} bytes)`);
    expect(j.images?.[0]?.mediaType).toBe('image/jpeg');
    const w = await runFile(cwd, 'read_file', { path: 'w.webp' });
    expect(w.output).toBe('image w.webp (640x480, 30 bytes)');
    expect(w.images?.[0]?.mediaType).toBe('image/webp');
  });

  it('refuses images over the size cap with a clear error', async () => {
    const png = tinyPng(40, 40);
    const cwd = await writeTree(await tempDir(), { 'big.png': png });
    const r = await runFile(cwd, 'read_file', { path: 'big.png' }, { tools: { readImageMaxBytes: 64 } });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(
      /^\[ERROR\] big\.png is a \d+ B image; images over 64 B are not returned\nHint: use a smaller image/,
    );
    expect(r.images).toBeUndefined();
  });

  it('refuses other binary files, directories, missing paths and offsets past the end', async () => {
    const cwd = await writeTree(await tempDir(), {
      'blob.bin': new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02]),
      'small.txt': 'one\ntwo\n',
      'empty.txt': '',
      'dir/x.txt': 'x',
    });
    const binary = await runFile(cwd, 'read_file', { path: 'blob.bin' });
    expect(binary.output).toMatch(/^\[ERROR\] blob\.bin looks like a binary file/);
    expect(binary.output).toContain('Hint: inspect it with bash');
    const dir = await runFile(cwd, 'read_file', { path: 'dir' });
    expect(dir.output).toMatch(/^\[ERROR\] dir is a directory, not a file\nHint: .*list_dir/);
    const missing = await runFile(cwd, 'read_file', { path: 'nope.txt' });
    expect(missing.output).toBe(
      '[ERROR] No such file or directory: nope.txt\nHint: the path does not exist; list the directory or use glob to find the right path',
    );
    const past = await runFile(cwd, 'read_file', { path: 'small.txt', offset: 5 });
    expect(past.output).toBe(
      '[ERROR] offset 5 is past the end of small.txt, which has 2 lines\nHint: use an offset between 1 and 2',
    );
    expect((await runFile(cwd, 'read_file', { path: 'empty.txt' })).output).toBe('(empty.txt is empty)');
  });
});

describe('read_many_files', () => {
  it('reads several files under headers, reporting bad ones inline', async () => {
    const cwd = await writeTree(await tempDir(), {
      'a.txt': 'alpha\nbeta\n',
      'src/b.ts': 'export const b = 1;\n',
      'empty.txt': '',
      'blob.bin': new Uint8Array([1, 0, 2]),
    });
    const r = await runFile(cwd, 'read_many_files', {
      paths: ['a.txt', 'src/b.ts', 'missing.txt', 'empty.txt', 'blob.bin'],
    });
    expect(r.status).toBe('ok');
    expect(r.output).toBe(
      [
        '==> a.txt (2 lines) <==\n     1\talpha\n     2\tbeta',
        '==> src/b.ts (1 line) <==\n     1\texport const b = 1;',
        '==> missing.txt <==\n[error] No such file or directory: missing.txt',
        '==> empty.txt (empty) <==',
        '==> blob.bin <==\n[error] binary file, not shown',
      ].join('\n\n'),
    );
  });

  it('cuts each file at max_chars_per_file and points to the rest', async () => {
    const cwd = await writeTree(await tempDir(), { 'long.txt': numbered(100), 'short.txt': 'x' });
    const r = await runFile(cwd, 'read_many_files', {
      paths: ['long.txt', 'short.txt'],
      max_chars_per_file: 150,
    });
    const [long, short] = r.output.split('\n\n');
    expect(long?.split('\n')[0]).toBe('==> long.txt (100 lines) <==');
    expect(long?.split('\n').at(-1)).toMatch(
      /^… \d+ more lines; read_file long\.txt with offset=\d+ for the rest$/,
    );
    expect(long!.length).toBeLessThan(300);
    expect(short).toBe('==> short.txt (1 line) <==\n     1\tx');
  });

  it('stops at the total budget, errors when every file fails, and validates the list', async () => {
    const cwd = await writeTree(await tempDir(), { 'a.txt': numbered(50), 'b.txt': numbered(50) });
    const r = await runFile(
      cwd,
      'read_many_files',
      { paths: ['a.txt', 'b.txt'] },
      { tools: { readMaxChars: 700, readManyMaxCharsPerFile: 650 } },
    );
    expect(r.output).toMatch(/^==> a\.txt \(50 lines\) <==/);
    expect(r.output).toMatch(/\(output budget reached; not shown: b\.txt; read them in another call\)$/);
    const failed = await runFile(cwd, 'read_many_files', { paths: ['nope', '../out.txt'] });
    expect(failed.status).toBe('error');
    expect(failed.output).toContain('[error] Path "../out.txt" is outside the workspace');
    const tooMany = await runFile(cwd, 'read_many_files', { paths: Array(21).fill('a.txt') });
    expect(tooMany.output).toMatch(/^\[ERROR\] Invalid arguments for read_many_files: paths: Too big/);
  });
});

describe('write_file', () => {
  it('creates parents, then overwrites, reporting sizes, leaving no temp files', async () => {
    const cwd = await tempDir();
    const created = await runFile(cwd, 'write_file', { path: 'a/b/c.txt', content: 'héllo\nworld\n' });
    expect(created).toEqual({
      output: 'Created a/b/c.txt (13 bytes, 2 lines)',
      isError: false,
      status: 'ok',
    });
    expect(await readFile(join(cwd, 'a/b/c.txt'), 'utf8')).toBe('héllo\nworld\n');
    const over = await runFile(cwd, 'write_file', { path: 'a/b/c.txt', content: 'x' });
    expect(over.output).toBe('Overwrote a/b/c.txt (1 byte, 1 line; was 13 bytes)');
    expect(await snapshot(cwd)).toEqual({ 'a/b/c.txt': 'x' });
  });

  it('keeps the mode of a file it overwrites', async () => {
    const cwd = await writeTree(await tempDir(), { 'run.sh': 'echo 1\n' });
    const { chmod } = await import('node:fs/promises');
    await chmod(join(cwd, 'run.sh'), 0o755);
    await runFile(cwd, 'write_file', { path: 'run.sh', content: 'echo 2\n' });
    expect((await stat(join(cwd, 'run.sh'))).mode & 0o777).toBe(0o755);
  });

  it('refuses directories, paths under a file and paths outside the workspace', async () => {
    const cwd = await writeTree(await tempDir(), { 'file.txt': 'keep', 'd/x': '' });
    const dir = await runFile(cwd, 'write_file', { path: 'd', content: 'x' });
    expect(dir.output).toMatch(/^\[ERROR\] d is a directory\nHint:/);
    const under = await runFile(cwd, 'write_file', { path: 'file.txt/inner.txt', content: 'x' });
    expect(under.output).toMatch(/^\[ERROR\] (ENOTDIR|EEXIST)/);
    expect(under.output).toMatch(/\nHint: /);
    expect(await readFile(join(cwd, 'file.txt'), 'utf8')).toBe('keep');
    const outside = await runFile(cwd, 'write_file', { path: '../escape.txt', content: 'x' });
    expect(outside.output).toMatch(/outside the workspace/);
    await expect(stat(join(cwd, '../escape.txt'))).rejects.toThrow();
  });
});

describe('append_file', () => {
  it('creates a missing file, appends to an existing one and notes a missing final newline', async () => {
    const cwd = await writeTree(await tempDir(), { 'log.txt': 'one\n', 'open.txt': 'no newline' });
    const created = await runFile(cwd, 'append_file', { path: 'new/notes.md', content: '# Notes\n' });
    expect(created.output).toBe('Created new/notes.md (8 bytes, 1 line)');
    const appended = await runFile(cwd, 'append_file', { path: 'log.txt', content: 'two\n' });
    expect(appended.output).toBe('Appended 4 bytes to log.txt (now 8 bytes)');
    expect(await readFile(join(cwd, 'log.txt'), 'utf8')).toBe('one\ntwo\n');
    const joined = await runFile(cwd, 'append_file', { path: 'open.txt', content: '!' });
    expect(joined.output).toBe(
      'Appended 1 byte to open.txt (now 11 bytes)\nNote: the file did not end with a newline, so the text continues its last line',
    );
    expect(await readFile(join(cwd, 'open.txt'), 'utf8')).toBe('no newline!');
  });

  it('refuses directories, binary files and empty content', async () => {
    const cwd = await writeTree(await tempDir(), { 'd/x': '', 'b.bin': new Uint8Array([0, 1]) });
    expect((await runFile(cwd, 'append_file', { path: 'd', content: 'x' })).output).toMatch(
      /^\[ERROR\] d is a directory/,
    );
    expect((await runFile(cwd, 'append_file', { path: 'b.bin', content: 'x' })).output).toMatch(
      /looks like a binary file/,
    );
    expect((await runFile(cwd, 'append_file', { path: 'x.txt', content: '' })).output).toMatch(
      /^\[ERROR\] Invalid arguments for append_file: content/,
    );
    expect(await snapshot(cwd)).toEqual({ 'd/x': '', 'b.bin': '\u0000\u0001' });
  });
});

describe('list_dir', () => {
  it('lists sorted entries, directories with a slash, files with sizes', async () => {
    const cwd = await writeTree(await tempDir(), {
      'b.txt': 'x'.repeat(2048),
      'a.txt': 'abc',
      'sub/inner.txt': '',
      '.hidden': '',
    });
    await symlink(join(cwd, 'sub'), join(cwd, 'link'));
    const r = await runFile(cwd, 'list_dir', {});
    expect(r.output).toBe(
      ['./ (5 entries)', '.hidden  (0 B)', 'a.txt  (3 B)', 'b.txt  (2.0 KB)', 'link/ (symlink)', 'sub/'].join(
        '\n',
      ),
    );
    expect((await runFile(cwd, 'list_dir', { path: 'sub' })).output).toBe('sub/ (1 entry)\ninner.txt  (0 B)');
  });

  it('caps long listings and reports empty directories and files', async () => {
    const cwd = await tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`many/f${String(i).padStart(2, '0')}.txt`] = '';
    await writeTree(cwd, files);
    await mkdir(join(cwd, 'empty'));
    const capped = await runFile(cwd, 'list_dir', { path: 'many' }, { tools: { listMaxEntries: 10 } });
    const lines = capped.output.split('\n');
    expect(lines[0]).toBe('many/ (30 entries)');
    expect(lines[11]).toBe('… 20 more entries not shown (capped at 10); use glob to narrow');
    expect((await runFile(cwd, 'list_dir', { path: 'empty' })).output).toBe(
      'empty/ (0 entries)\n(empty directory)',
    );
    expect((await runFile(cwd, 'list_dir', { path: 'many/f00.txt' })).output).toBe(
      '[ERROR] many/f00.txt is a file, not a directory\nHint: use read_file to read it',
    );
  });
});

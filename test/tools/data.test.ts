import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataTools } from '../../src/tools/builtin/data.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import { call, makeCtx, tempDir, writeTree } from './helpers.js';

function run(name: string, args: Record<string, unknown>, cwd = process.cwd()): Promise<ToolRunResult> {
  const registry = new ToolRegistry();
  registry.registerAll(dataTools());
  return runTool(registry, call(name, args), makeCtx(cwd));
}

describe('data family', () => {
  it('declares every tool as a read-only, concurrency-safe data tool', () => {
    const tools = dataTools();
    expect(tools.map((t) => t.name)).toEqual(['calculate', 'json_query', 'hash_text', 'encode_text', 'uuid']);
    for (const tool of tools) {
      expect([tool.category, tool.readOnly, tool.concurrencySafe, tool.approval]).toEqual([
        'data',
        true,
        true,
        'none',
      ]);
      expect(tool.keywords?.length).toBeGreaterThan(3);
      expect(tool.description.length).toBeLessThan(400);
    }
    const registry = new ToolRegistry();
    registry.registerAll(tools);
    expect(registry.specs().map((s) => s.parameters.type)).toEqual([
      'object',
      'object',
      'object',
      'object',
      'object',
    ]);
    const hash = tools.find((t) => t.name === 'hash_text')!;
    expect(hash.subject?.({ path: 'dist/app.js' })).toBe('dist/app.js');
    expect(hash.subject?.({ text: 'x' })).toBe('(text)');
  });
});

describe('hash_text', () => {
  it('hashes text with each algorithm (known test vectors)', async () => {
    expect((await run('hash_text', { text: 'abc' })).output).toBe(
      'sha256 of the text (3 bytes, UTF-8): ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect((await run('hash_text', { text: 'abc', algorithm: 'sha1' })).output).toBe(
      'sha1 of the text (3 bytes, UTF-8): a9993e364706816aba3e25717850c26c9cd0d89d',
    );
    expect((await run('hash_text', { text: '', algorithm: 'md5' })).output).toBe(
      'md5 of the text (0 bytes, UTF-8): d41d8cd98f00b204e9800998ecf8427e',
    );
    expect((await run('hash_text', { text: 'abc', algorithm: 'sha512' })).output).toMatch(
      /^sha512 of the text \(3 bytes, UTF-8\): ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f$/,
    );
    expect((await run('hash_text', { text: '你好' })).output).toMatch(
      /^sha256 of the text \(6 bytes, UTF-8\): /,
    );
  });

  it('hashes workspace files, streaming large ones', async () => {
    const cwd = await writeTree(await tempDir(), { 'abc.txt': 'abc' });
    const big = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) % 251;
    await writeFile(join(cwd, 'big.bin'), big);
    expect((await run('hash_text', { path: 'abc.txt' }, cwd)).output).toBe(
      'sha256 of abc.txt (3 B): ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    const whole = createHash('md5').update(big).digest('hex');
    expect((await run('hash_text', { path: 'big.bin', algorithm: 'md5' }, cwd)).output).toBe(
      `md5 of big.bin (3.0 MB): ${whole}`,
    );
  });

  it('explains bad input', async () => {
    const cwd = await tempDir();
    await mkdir(join(cwd, 'dir'));
    expect((await run('hash_text', {}, cwd)).output).toMatch(
      /^\[ERROR\] Pass exactly one of `text` or `path`/,
    );
    expect((await run('hash_text', { text: 'a', path: 'b' }, cwd)).output).toMatch(
      /^\[ERROR\] Pass exactly one of/,
    );
    expect((await run('hash_text', { path: 'dir' }, cwd)).output).toMatch(
      /^\[ERROR\] dir is a directory, not a file/,
    );
    expect((await run('hash_text', { path: 'missing.txt' }, cwd)).output).toMatch(
      /^\[ERROR\] No such file or directory: missing\.txt/,
    );
    expect((await run('hash_text', { path: '/etc/passwd' }, cwd)).output).toMatch(/is outside the workspace/);
    expect((await run('hash_text', { text: 'a', algorithm: 'crc32' }, cwd)).output).toMatch(
      /^\[ERROR\] Invalid arguments for hash_text: algorithm: /,
    );
  });
});

describe('encode_text', () => {
  const enc = async (op: string, text: string): Promise<string> =>
    (await run('encode_text', { op, text })).output;

  it('round-trips base64, URL and hex encodings of UTF-8 text', async () => {
    const text = 'héllo, 世界 & more/?';
    expect(await enc('base64_encode', 'hello world')).toBe('aGVsbG8gd29ybGQ=');
    expect(await enc('base64_decode', await enc('base64_encode', text))).toBe(text);
    expect(await enc('url_encode', 'a b&c/ü')).toBe('a%20b%26c%2F%C3%BC');
    expect(await enc('url_decode', await enc('url_encode', text))).toBe(text);
    expect(await enc('hex_encode', 'hi!')).toBe('686921');
    expect(await enc('hex_decode', await enc('hex_encode', text))).toBe(text);
  });

  it('accepts common variants when decoding', async () => {
    expect(await enc('base64_decode', 'aGVsbG8gd29y\nbGQ')).toBe('hello world');
    expect(await enc('base64_decode', 'Pz8_')).toBe('???');
    expect(await enc('hex_decode', '0x68 69')).toBe('hi');
    expect(await enc('hex_decode', 'fffe')).toBe('(not UTF-8 text; 2 bytes as hex: fffe)');
    expect(await enc('base64_decode', '/w==')).toBe('(not UTF-8 text; 1 byte as hex: ff)');
  });

  it('says exactly what is wrong with bad input', async () => {
    expect(await enc('base64_decode', 'abc$def')).toBe(
      '[ERROR] Not base64: unexpected character "$" at position 4\n' +
        'Hint: base64 uses A-Z a-z 0-9 + / (or - _) and = padding',
    );
    expect(await enc('base64_decode', 'abcde')).toMatch(
      /^\[ERROR\] Not base64: the padding or length is wrong/,
    );
    expect(await enc('base64_decode', 'ab=c')).toMatch(
      /^\[ERROR\] Not base64: the padding or length is wrong/,
    );
    expect(await enc('hex_decode', 'abc')).toBe(
      '[ERROR] Not hex: odd number of digits (3)\nHint: each byte is two hex digits',
    );
    expect(await enc('hex_decode', 'zz')).toMatch(
      /^\[ERROR\] Not hex: unexpected character "z" at position 1/,
    );
    expect(await enc('url_decode', '100%')).toBe(
      '[ERROR] Not valid URL encoding (a "%" at position 4 is not followed by two hex digits)\n' +
        'Hint: percent escapes must be %XX and form UTF-8 text',
    );
    expect(await enc('url_decode', '%C3%28')).toMatch(/^\[ERROR\] Not valid URL encoding\nHint: /);
    expect(await enc('rot13', 'x')).toMatch(/^\[ERROR\] Invalid arguments for encode_text: op: /);
  });
});

describe('uuid', () => {
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('generates distinct version-4 UUIDs', async () => {
    const one = await run('uuid', {});
    expect(one.output).toMatch(V4);
    const many = (await run('uuid', { count: 20 })).output.split('\n');
    expect(many).toHaveLength(20);
    for (const id of many) expect(id).toMatch(V4);
    expect(new Set(many).size).toBe(20);
  });

  it('caps the count', async () => {
    expect((await run('uuid', { count: 21 })).output).toMatch(
      /^\[ERROR\] Invalid arguments for uuid: count: /,
    );
    expect((await run('uuid', { count: 0 })).output).toMatch(
      /^\[ERROR\] Invalid arguments for uuid: count: /,
    );
  });
});

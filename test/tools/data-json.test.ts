import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DataToolOptions, dataTools } from '../../src/tools/builtin/data.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import { call, makeCtx, tempDir, writeTree } from './helpers.js';

const DOC = {
  name: 'tea',
  version: 3,
  'key with space': { ok: true },
  items: [
    { id: 1, name: 'alpha', tags: ['a', 'b'] },
    { id: 2, name: 'beta', tags: [] },
    { id: 3, tags: ['c'] },
  ],
  meta: null,
  empty: [],
};
const JSON_TEXT = JSON.stringify(DOC);

async function query(
  args: Record<string, unknown>,
  opts: DataToolOptions = {},
  cwd = process.cwd(),
): Promise<ToolRunResult> {
  const registry = new ToolRegistry();
  registry.registerAll(dataTools(opts));
  return runTool(registry, call('json_query', args), makeCtx(cwd));
}

const q = async (path: string): Promise<string> => (await query({ json: JSON_TEXT, query: path })).output;

describe('json_query paths', () => {
  it('reads fields, indexes and quoted keys', async () => {
    expect(await q('.name')).toBe('"tea"');
    expect(await q('.items[0].name')).toBe('"alpha"');
    expect(await q('.items[-1].id')).toBe('3');
    expect(await q('.items.1.name')).toBe('"beta"');
    expect(await q('.["key with space"].ok')).toBe('true');
    expect(await q(".['key with space']")).toBe('{\n  "ok": true\n}');
    expect(await q('."key with space"')).toBe('{\n  "ok": true\n}');
    expect(await q('.items[0].tags')).toBe('[\n  "a",\n  "b"\n]');
    expect(await q('.meta')).toBe('null');
    expect(JSON.parse(await q('.'))).toEqual(DOC);
  });

  it('iterates, slices and counts', async () => {
    expect(await q('.items[].name')).toBe('3 results:\n[\n  "alpha",\n  "beta",\n  null\n]');
    expect(await q('.items[].tags[]')).toBe('3 results:\n[\n  "a",\n  "b",\n  "c"\n]');
    expect(await q('.items[1:3] | length')).toBe('2');
    expect(await q('.items[:1][].id')).toBe('1 result:\n[\n  1\n]');
    expect(await q('.name[1:]')).toBe('"ea"');
    expect(await q('.items | length')).toBe('3');
    expect(await q('.items.length')).toBe('3');
    expect(await q('length')).toBe('6');
    expect(await q('.name | length')).toBe('3');
    expect(await q('.meta | length')).toBe('0');
    expect(await q('.items[] | length')).toBe('3 results:\n[\n  3,\n  3,\n  2\n]');
    expect(await q('.items[].tags | length')).toBe('3 results:\n[\n  2,\n  0,\n  1\n]');
    expect(await q('.empty[]')).toBe('0 results:\n[]');
    expect(JSON.parse(await q('keys'))).toEqual([
      'name',
      'version',
      'key with space',
      'items',
      'meta',
      'empty',
    ]);
    expect(JSON.parse(await q('.items | keys'))).toEqual([0, 1, 2]);
    expect(await q('.["key with space"][]')).toBe('1 result:\n[\n  true\n]');
  });

  it('names the missing key or index and what is there instead', async () => {
    expect(await q('.nmae')).toBe(
      '[ERROR] No key "nmae" at .; keys there: name, version, key with space, items, meta, empty\n' +
        'Hint: write paths like .a.b, .items[0], .items[-1], .items[1:3], .items[].name, .a["key with space"], ' +
        '.items | length, . | keys',
    );
    expect(await q('.items[].nope')).toMatch(
      /^\[ERROR\] No key "nope" at \.items\[\]; keys there: id, name, tags\n/,
    );
    expect(await q('.items[5]')).toMatch(
      /^\[ERROR\] Index \[5\] is out of range at \.items \(the array there has 3 elements\)/,
    );
    expect(await q('.meta.x')).toMatch(/^\[ERROR\] No key "x" at \.meta: the value there is null/);
  });

  it('explains type mismatches', async () => {
    expect(await q('.version.x')).toMatch(/^\[ERROR\] Cannot read key "x" of a number at \.version\n/);
    expect(await q('.items.name')).toMatch(
      /^\[ERROR\] Cannot read key "name" of an array at \.items \(use \[0\] for an element or \[\] for each element\)/,
    );
    expect(await q('[0]')).toMatch(/^\[ERROR\] Cannot index an object with \[0\] at \./);
    expect(await q('.name[]')).toMatch(/^\[ERROR\] Cannot iterate over a string at \.name/);
    expect(await q('.version[0:1]')).toMatch(/^\[ERROR\] Cannot slice a number at \.version/);
    expect(await q('.version | keys')).toMatch(/^\[ERROR\] a number has no keys \(at \.version \| \.\)/);
    expect(await q('.items[0].id | length')).toMatch(/^\[ERROR\] a number has no length/);
  });

  it('points at query syntax errors', async () => {
    expect(await q('.a[')).toBe(
      '[ERROR] Bad query at position 3: missing "]"\n  .a[\n    ^\n' +
        'Hint: write paths like .a.b, .items[0], .items[-1], .items[1:3], .items[].name, .a["key with space"], ' +
        '.items | length, . | keys',
    );
    expect(await q('items')).toMatch(
      /^\[ERROR\] Bad query at position 1: unexpected "i"; a path starts with "\." or "\["/,
    );
    expect(await q('.items |')).toMatch(/^\[ERROR\] Bad query at position 9: nothing after "\|"/);
    expect(await q('| length')).toMatch(/^\[ERROR\] Bad query at position 1: nothing before "\|"/);
    expect(await q('.items[x]')).toMatch(
      /^\[ERROR\] Bad query at position 8: expected an index, a slice like 1:3/,
    );
    expect(await q('.["open]')).toMatch(/^\[ERROR\] Bad query at position 3: unterminated quoted key/);
    expect(await q('')).toMatch(
      /^\[ERROR\] Bad query at position 1: the query is empty \(use "\." for the whole document\)/,
    );
    expect(await q('.items length')).toMatch(/^\[ERROR\] Bad query at position 8: unexpected "l"/);
  });
});

describe('json_query input', () => {
  it('reports invalid JSON with line, column and a caret', async () => {
    const trailing = await query({ json: '{"a": [1, 2,]}', query: '.' });
    expect(trailing.output).toBe(
      '[ERROR] the json text is not valid JSON: trailing comma before "]" at line 1, column 13\n' +
        '  {"a": [1, 2,]}\n              ^\n' +
        'Hint: fix the JSON at that spot (double quotes, no trailing commas, no comments)',
    );
    const missingComma = await query({ json: '{\n  "a": 1\n  "b": 2\n}', query: '.a' });
    expect(missingComma.output).toMatch(
      /not valid JSON: expected "," or "}" but found "\\"" at line 3, column 3\n {2} {2}"b": 2\n {4}\^/,
    );
    const quotes = await query({ json: "{'a': 1}", query: '.' });
    expect(quotes.output).toMatch(/expected a double-quoted property name but found "'" at line 1, column 2/);
    const literal = await query({ json: '[tru]', query: '.' });
    expect(literal.output).toMatch(/unexpected "t"; expected a value at line 1, column 2/);
    const extra = await query({ json: '{} {}', query: '.' });
    expect(extra.output).toMatch(/unexpected "\{" after the JSON value at line 1, column 4/);
    const cut = await query({ json: '{"a": "unterminated', query: '.' });
    expect(cut.output).toMatch(/unterminated string at line 1, column 20/);
    const empty = await query({ json: '  ', query: '.' });
    expect(empty.output).toMatch(/^\[ERROR\] the json text is empty, not JSON/);
  });

  it('wants exactly one of json and path', async () => {
    const both = await query({ json: '{}', path: 'x.json', query: '.' });
    expect(both.output).toMatch(/^\[ERROR\] Pass exactly one of `json` \(text\) or `path` \(a file\)/);
    const neither = await query({ query: '.' });
    expect(neither.output).toMatch(/^\[ERROR\] Pass exactly one of/);
  });

  it('reads workspace files, with a BOM, within the size limit', async () => {
    const cwd = await writeTree(await tempDir(), {
      'data/pkg.json': `\ufeff${JSON.stringify({ scripts: { test: 'vitest' } })}`,
      'data/broken.json': '{\n  "a": 1,\n}\n',
    });
    const r = await query({ path: 'data/pkg.json', query: '.scripts.test' }, {}, cwd);
    expect(r).toEqual({ output: '"vitest"', isError: false, status: 'ok' });
    const broken = await query({ path: 'data/broken.json', query: '.' }, {}, cwd);
    expect(broken.output).toMatch(
      /^\[ERROR\] data\/broken\.json is not valid JSON: trailing comma before "}" at line 3, column 1/,
    );
    const big = await query({ path: 'data/pkg.json', query: '.' }, { jsonMaxFileBytes: 10 }, cwd);
    expect(big.output).toMatch(
      /^\[ERROR\] data\/pkg\.json is 3\d B, over the 10 B json_query limit\nHint: use grep or bash/,
    );
    const dir = await query({ path: 'data', query: '.' }, {}, cwd);
    expect(dir.output).toMatch(/^\[ERROR\] data is a directory, not a file/);
    const missing = await query({ path: 'nope.json', query: '.' }, {}, cwd);
    expect(missing.output).toMatch(/^\[ERROR\] No such file or directory: nope\.json/);
    const outside = await query({ path: '/etc/passwd', query: '.' }, {}, cwd);
    expect(outside.output).toMatch(/^\[ERROR\] Path "\/etc\/passwd" is outside the workspace/);
    await writeFile(join(cwd, 'list.json'), '[{"n": 1}, {"n": 2}]');
    expect((await query({ path: 'list.json', query: '.[].n' }, {}, cwd)).output).toBe(
      '2 results:\n[\n  1,\n  2\n]',
    );
  });
});

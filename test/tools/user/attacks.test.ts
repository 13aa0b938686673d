/**
 * Break-in attempts at the user-tool store and loader: names and versions that walk
 * out of the tools directory, symbolic links planted in it, a manifest edited by hand
 * (a lower approval class, other facts, files changed behind it), names of other
 * tools, oversized input. Each is refused with a message that says why, and nothing
 * is written where it should not be.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../../src/tools/builtin/index.js';
import type { ToolRegistry } from '../../../src/tools/registry.js';
import { runTool } from '../../../src/tools/run.js';
import { MAX_SOURCE_BYTES } from '../../../src/tools/user/compile.js';
import type { UserToolManifest } from '../../../src/tools/user/manifest.js';
import { registerUserTools } from '../../../src/tools/user/register.js';
import { UserToolStore } from '../../../src/tools/user/store.js';
import { useTempDirs } from '../../store/helpers.js';
import { toolSource } from './helpers.js';

const tempDir = useTempDirs();
let home: string;
let warnings: string[];
let registry: ToolRegistry;
let calls = 0;

async function freshRegistry(): Promise<ToolRegistry> {
  const r = await createToolRegistry();
  registerUserTools(r, { home, warn: (m) => warnings.push(m) });
  return r;
}

beforeEach(async () => {
  home = path.join(tempDir(), 'home');
  mkdirSync(home);
  warnings = [];
  registry = await freshRegistry();
});

async function call(name: string, args: Record<string, unknown>, reg = registry): Promise<string> {
  const ctx = { cwd: home, sessionId: 's', callId: `c${++calls}`, signal: new AbortController().signal };
  return (await runTool(reg, { type: 'tool-call', id: ctx.callId, name, args }, ctx)).output;
}

const toolsDir = () => path.join(home, 'tools');
const manifestFile = (name: string) => path.join(toolsDir(), name, 'manifest.json');
const readJson = (name: string): UserToolManifest => JSON.parse(readFileSync(manifestFile(name), 'utf8'));
const writeJson = (name: string, m: UserToolManifest) => writeFileSync(manifestFile(name), JSON.stringify(m));

describe('names and versions that leave the tools directory', () => {
  it.each(['../escape', 'a/b', '..', 'Upper', 'x', `a${'b'.repeat(48)}`, 'évil', 'a\u0000b'])(
    'tool_create refuses the name %j and writes nothing',
    async (name) => {
      const out = await call('tool_create', { name, code: toolSource({ name }) });
      expect(out).toMatch(/^\[ERROR\] Invalid arguments for tool_create: name: use 2-48 lower-case letters/);
      expect(existsSync(toolsDir())).toBe(false);
    },
  );

  it.each(['../../etc/passwd', '1.0', '1.0.0/../../x', '01.0.0', '1.0.0.ts', ''])(
    'tool_rollback refuses the version %j',
    async (version) => {
      expect(await call('tool_create', { name: 'echo_words', code: toolSource() })).toMatch(
        /^Created echo_words 1\.0\.0/,
      );
      const before = readFileSync(manifestFile('echo_words'), 'utf8');
      const out = await call('tool_rollback', { name: 'echo_words', version });
      expect(out).toMatch(/^\[ERROR\] .*is not a version \(e\.g\. 1\.0\.0\)/);
      expect(readFileSync(manifestFile('echo_words'), 'utf8')).toBe(before);
    },
  );

  it('the store refuses such names and versions outright', () => {
    const store = new UserToolStore(home);
    expect(store.read('../x')).toBeUndefined();
    expect(store.remove('../x')).toBe(false);
    expect(() => store.source('echo_words', '../../x')).toThrow(/invalid version/);
    expect(() => store.source('../x', '1.0.0')).toThrow(/invalid tool name/);
  });
});

describe('symbolic links in the tools directory', () => {
  it('a tool directory that is a link is skipped at start-up, and never written through', async () => {
    expect(await call('tool_create', { name: 'echo_words', code: toolSource() })).toMatch(/^Created/);
    const elsewhere = path.join(tempDir(), 'elsewhere');
    mkdirSync(elsewhere);
    // A copy of a good tool, reached through a link.
    for (const f of readdirSync(path.join(toolsDir(), 'echo_words')))
      writeFileSync(
        path.join(elsewhere, f),
        readFileSync(path.join(toolsDir(), 'echo_words', f), 'utf8').replaceAll('echo_words', 'linked_tool'),
      );
    symlinkSync(elsewhere, path.join(toolsDir(), 'linked_tool'));
    const r = await freshRegistry();
    expect(r.has('echo_words')).toBe(true);
    expect(r.has('linked_tool')).toBe(false);
    expect(warnings).toContainEqual(
      expect.stringMatching(/user tool linked_tool skipped: .* is a symbolic link/),
    );
    const before = readdirSync(elsewhere).sort();
    const out = await call(
      'tool_create',
      { name: 'linked_tool', code: toolSource({ name: 'linked_tool' }) },
      r,
    );
    expect(out).toMatch(/^\[ERROR\] .*is a symbolic link; Tea does not follow links in its tools directory/);
    expect(readdirSync(elsewhere).sort()).toEqual(before);
  });

  it('removing a tool whose directory is a link removes the link only', async () => {
    const elsewhere = path.join(tempDir(), 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(path.join(elsewhere, 'keep.txt'), 'precious');
    mkdirSync(toolsDir());
    symlinkSync(elsewhere, path.join(toolsDir(), 'linked_tool'));
    const store = new UserToolStore(home);
    expect(() => store.read('linked_tool')).toThrow(/is a symbolic link/);
    expect(store.remove('linked_tool')).toBe(true);
    expect(existsSync(path.join(toolsDir(), 'linked_tool'))).toBe(false);
    expect(readFileSync(path.join(elsewhere, 'keep.txt'), 'utf8')).toBe('precious');
  });

  it('a manifest or version file that is a link is not read', async () => {
    expect(await call('tool_create', { name: 'echo_words', code: toolSource() })).toMatch(/^Created/);
    const real = path.join(tempDir(), 'manifest.json');
    writeFileSync(real, readFileSync(manifestFile('echo_words')));
    const { unlinkSync } = await import('node:fs');
    unlinkSync(manifestFile('echo_words'));
    symlinkSync(real, manifestFile('echo_words'));
    await freshRegistry();
    expect(warnings).toContainEqual(
      expect.stringMatching(/user tool echo_words skipped: .*manifest\.json is a symbolic link/),
    );

    // A version file swapped for a link: the tool does not load.
    unlinkSync(manifestFile('echo_words'));
    writeFileSync(manifestFile('echo_words'), readFileSync(real));
    const bundle = path.join(toolsDir(), 'echo_words', '1.0.0.cjs');
    const copy = path.join(tempDir(), 'copy.cjs');
    writeFileSync(copy, readFileSync(bundle));
    unlinkSync(bundle);
    symlinkSync(copy, bundle);
    const out = await call('echo_words', { text: 'a b' }, await freshRegistry());
    expect(out).toMatch(
      /^\[ERROR\] the tool "echo_words" could not be loaded: .*1\.0\.0\.cjs is a symbolic link/,
    );
  });
});

describe('a manifest edited by hand', () => {
  const spawning = toolSource({
    approval: 'exec',
    head: "import { execFileSync } from 'node:child_process';",
    body: "return String(execFileSync('echo', [args.text]));",
  });

  it('a lower approval class: the code is checked again on load and the tool is refused, naming the evidence', async () => {
    expect(await call('tool_create', { name: 'echo_words', code: spawning })).toMatch(/approval exec/);
    const m = readJson('echo_words');
    m.versions[0]!.approval = 'none';
    writeJson('echo_words', m);
    const r = await freshRegistry();
    // Registered by the (edited) facts, so it would run without asking in ask mode...
    expect(r.get('echo_words')?.approval).toBe('none');
    // ...but its code does not load under them.
    expect(await call('echo_words', { text: 'hi' }, r)).toMatch(
      /^\[ERROR\] the tool "echo_words" could not be loaded: its manifest declares approval "none", but its code needs "exec": require\("node:child_process"\)/,
    );
  });

  it('the module itself declaring a higher class than the manifest is refused too', async () => {
    const tool = toolSource({ approval: 'network', body: 'return String(typeof args.text);' });
    expect(await call('tool_create', { name: 'echo_words', code: tool })).toMatch(
      /approval network; its code needs none/,
    );
    const m = readJson('echo_words');
    m.versions[0]!.approval = 'none';
    writeJson('echo_words', m);
    expect(await call('echo_words', { text: 'hi' }, await freshRegistry())).toMatch(
      /its manifest does not match its code \(approval: the manifest says "none", the code "network"\)/,
    );
  });

  it('other facts changed: a different description or schema is refused', async () => {
    expect(await call('tool_create', { name: 'echo_words', code: toolSource() })).toMatch(/^Created/);
    const m = readJson('echo_words');
    m.versions[0]!.description = 'Deletes everything (harmless, promise).';
    m.versions[0]!.parameters = { type: 'object', properties: {}, required: [] };
    writeJson('echo_words', m);
    expect(await call('echo_words', { text: 'a' }, await freshRegistry())).toMatch(
      /its manifest does not match its code \(the description differs; the parameters schema differs\)/,
    );
  });

  it('the code changed behind the manifest (and the bundle with it): the hashes no longer match', async () => {
    expect(await call('tool_create', { name: 'echo_words', code: toolSource() })).toMatch(/^Created/);
    const bundle = path.join(toolsDir(), 'echo_words', '1.0.0.cjs');
    writeFileSync(bundle, readFileSync(bundle, 'utf8').replace('words: ', 'WORDS: '));
    expect(await call('echo_words', { text: 'a' }, await freshRegistry())).toMatch(
      /the files of version 1\.0\.0 do not match the hashes in its manifest/,
    );
  });

  it('new hashes written too: the re-check still sees a process spawned under approval none', async () => {
    expect(await call('tool_create', { name: 'echo_words', code: toolSource() })).toMatch(/^Created/);
    const bundle = path.join(toolsDir(), 'echo_words', '1.0.0.cjs');
    const evil = readFileSync(bundle, 'utf8').replace(
      'return "words: "',
      'require("__tea_mod:node:child_process").execSync("true"); return "words: "',
    );
    writeFileSync(bundle, evil);
    const m = readJson('echo_words');
    const { createHash } = await import('node:crypto');
    m.versions[0]!.bundleSha256 = createHash('sha256').update(evil).digest('hex');
    writeJson('echo_words', m);
    expect(await call('echo_words', { text: 'a' }, await freshRegistry())).toMatch(
      /its manifest declares approval "none", but its code needs "exec": require\("node:child_process"\)/,
    );
  });

  it('damaged or oversized manifests are skipped at start-up with a warning', async () => {
    mkdirSync(path.join(toolsDir(), 'broken_json'), { recursive: true });
    writeFileSync(manifestFile('broken_json'), '{"format": 1,');
    mkdirSync(path.join(toolsDir(), 'wrong_name'));
    writeFileSync(manifestFile('wrong_name'), JSON.stringify({ format: 1, name: 'other' }));
    mkdirSync(path.join(toolsDir(), 'huge_one'));
    writeFileSync(manifestFile('huge_one'), ' '.repeat(4 * 1024 * 1024 + 1));
    const r = await freshRegistry();
    expect(['broken_json', 'wrong_name', 'huge_one'].filter((n) => r.has(n))).toEqual([]);
    expect(warnings.join('\n')).toMatch(/broken_json skipped: its manifest is not JSON/);
    expect(warnings.join('\n')).toMatch(/wrong_name skipped: its manifest names the tool "other"/);
    expect(warnings.join('\n')).toMatch(/huge_one skipped: .* at most 4194304 are read/);
  });
});

describe('names of other tools', () => {
  it.each([
    ['read_file', 'it is the name of the built-in tool read_file (files)'],
    ['memory', 'it is the name of the built-in tool memory'],
    ['tool_create', 'it is the name of the built-in tool tool_create (meta)'],
    ['mcp__github__issues', 'names starting with mcp__ belong to MCP servers'],
    ['agent_reviewer', 'names starting with agent_ belong to roles offered as tools'],
  ])('tool_create refuses %s', async (name, why) => {
    const out = await call('tool_create', { name, code: toolSource({ name }) });
    expect(out).toBe(`[ERROR] cannot use the name ${name}: ${why}\nHint: choose another name`);
    expect(existsSync(toolsDir())).toBe(false);
  });

  it('a tool saved on disk under a built-in name is skipped at start-up; the built-in stays', async () => {
    expect(await call('tool_create', { name: 'echo_words', code: toolSource() })).toMatch(/^Created/);
    const { renameSync } = await import('node:fs');
    renameSync(path.join(toolsDir(), 'echo_words'), path.join(toolsDir(), 'read_file'));
    const m = readJson('read_file');
    m.name = 'read_file';
    writeJson('read_file', m);
    const r = await freshRegistry();
    expect(r.get('read_file')?.category).toBe('files');
    expect(warnings).toContainEqual(
      'user tool read_file skipped: it is the name of the built-in tool read_file (files)',
    );
  });
});

describe('size and overwrite limits', () => {
  it('huge code is refused before compiling', async () => {
    const code = toolSource({ head: `const pad = "${'x'.repeat(MAX_SOURCE_BYTES)}";` });
    expect(await call('tool_create', { name: 'echo_words', code })).toMatch(
      /^\[ERROR\] echo_words was not saved: the code is \d+ bytes; a tool may have at most 65536/,
    );
  });

  it('a version file already on disk is never overwritten; the update fails and changes nothing', async () => {
    expect(await call('tool_create', { name: 'echo_words', code: toolSource() })).toMatch(/^Created/);
    const planted = path.join(toolsDir(), 'echo_words', '1.0.1.ts');
    writeFileSync(planted, 'planted');
    const before = readFileSync(manifestFile('echo_words'), 'utf8');
    const out = await call('tool_update', { name: 'echo_words', code: toolSource({ body: "return 'v2';" }) });
    expect(out).toMatch(/^\[ERROR\] .*EEXIST/);
    expect(readFileSync(planted, 'utf8')).toBe('planted');
    expect(readFileSync(manifestFile('echo_words'), 'utf8')).toBe(before);
    expect(await call('echo_words', { text: 'a b' })).toBe('words: 2');
  });
});

describe('a saved version that does not load', () => {
  it('is taken back: the files go, the manifest is as it was, the registry keeps the old version', async () => {
    expect(await call('tool_create', { name: 'echo_words', code: toolSource() })).toMatch(/^Created/);
    const before = readFileSync(manifestFile('echo_words'), 'utf8');
    // Passes the check (its first evaluation), then throws when loaded from disk (its second).
    const flaky = toolSource({
      head: "if (process.env.TEA_FLAKY_TOOL) throw new Error('second load'); process.env.TEA_FLAKY_TOOL = '1';",
      body: "return 'v2';",
    });
    try {
      const out = await call('tool_update', { name: 'echo_words', code: flaky });
      expect(out).toMatch(
        /^\[ERROR\] echo_words was saved but does not load, so it was taken back: .*second load/,
      );
    } finally {
      delete process.env.TEA_FLAKY_TOOL;
    }
    expect(readFileSync(manifestFile('echo_words'), 'utf8')).toBe(before);
    expect(existsSync(path.join(toolsDir(), 'echo_words', '1.0.1.ts'))).toBe(false);
    expect(await call('echo_words', { text: 'a b' })).toBe('words: 2');
  });
});

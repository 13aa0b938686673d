import { chmod, readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execTools } from '../../src/tools/builtin/exec.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import { call, diesSoon, makeCtx, tempDir, writeTree } from './helpers.js';

const savedPath = process.env.PATH;

afterEach(() => {
  process.env.PATH = savedPath;
});

async function which(cwd: string, name: string, versionTimeoutMs = 2000): Promise<ToolRunResult> {
  const registry = new ToolRegistry();
  registry.registerAll(execTools({ whichVersionTimeoutMs: versionTimeoutMs }));
  return runTool(registry, call('which', { name }), makeCtx(cwd));
}

async function fakeProgram(dir: string, name: string, script: string): Promise<string> {
  await writeTree(dir, { [name]: `#!/bin/sh\n${script}\n` });
  await chmod(join(dir, name), 0o755);
  return join(dir, name);
}

describe('which', () => {
  it('finds a program on PATH with the first line of its --version', async () => {
    const cwd = await tempDir();
    const bin = await tempDir();
    const path = await fakeProgram(bin, 'teatool', 'echo ""; echo "teatool 1.2.3 (build 7)"; echo "more"');
    process.env.PATH = `${bin}${delimiter}${savedPath}`;
    const r = await which(cwd, 'teatool');
    expect(r).toEqual({ output: `${path}\nversion: teatool 1.2.3 (build 7)`, isError: false, status: 'ok' });
    const node = await which(cwd, 'node');
    expect(node.output).toMatch(/^\/\S*node\nversion: v\d+\.\d+\.\d+/);
  });

  it('lists other copies further down PATH', async () => {
    const cwd = await tempDir();
    const [a, b] = [await tempDir(), await tempDir()];
    const first = await fakeProgram(a, 'twin', 'echo twin-a');
    const second = await fakeProgram(b, 'twin', 'echo twin-b');
    process.env.PATH = [a, b, savedPath].join(delimiter);
    const r = await which(cwd, 'twin');
    expect(r.output).toBe(`${first}\nversion: twin-a\nalso on PATH: ${second}`);
  });

  it('gives up on --version after the time limit and kills the probe', async () => {
    const cwd = await tempDir();
    const bin = await tempDir();
    const path = await fakeProgram(bin, 'slowpoke', `echo $$ > ${join(cwd, 'probe.pid')}; sleep 30`);
    process.env.PATH = `${bin}${delimiter}${savedPath}`;
    const r = await which(cwd, 'slowpoke', 200);
    expect(r.output).toBe(`${path}\nversion: (no answer to --version within 0.2 s)`);
    const pid = Number((await readFile(join(cwd, 'probe.pid'), 'utf8')).trim());
    expect(await diesSoon(pid)).toBe(true);
  });

  it('explains a missing program and refuses paths or arguments', async () => {
    const cwd = await tempDir();
    const missing = await which(cwd, 'tea-no-such-program-xyz');
    expect(missing.output).toMatch(/^\[ERROR\] tea-no-such-program-xyz was not found on PATH\nHint: /);
    const path = await which(cwd, '../bin/sh');
    expect(path.output).toMatch(/^\[ERROR\] "\.\.\/bin\/sh" is not a program name\nHint: pass a bare name/);
    const args = await which(cwd, 'ls -la');
    expect(args.output).toMatch(/^\[ERROR\] "ls -la" is not a program name/);
  });
});

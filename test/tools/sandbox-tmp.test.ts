/**
 * A program whose file lives under /tmp (outside the workspace) still runs in the
 * sandbox, whose /tmp is private: its top directory there is brought back read-only.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { programHomes, Sandbox } from '../../src/tools/sandbox/sandbox.js';
import { ON_LINUX, outsideTmp, requireBwrap } from './sandbox-helpers.js';

describe('programHomes', () => {
  it.each([
    [['/usr/bin/node', '/tmp/x/a.js'], [], ['/tmp/x']],
    [['/tmp/x/a.js', '/tmp/x/b/c.js'], [], ['/tmp/x']],
    [['/tmp/x/a.js'], ['/tmp/x'], []],
    [['relative/a.js', '--flag', '/tmp'], [], []],
    [['/tmp/does-not-exist-anywhere/a.js'], [], []],
  ])('%j with writable %j → %j', (paths, writable, expected) => {
    const made = paths.filter((p) => p.startsWith('/tmp/x'));
    for (const p of made) {
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, '');
    }
    try {
      expect(programHomes(paths, writable)).toEqual(expected);
    } finally {
      if (made.length > 0) rmSync('/tmp/x', { recursive: true, force: true });
    }
  });
});

describe.runIf(ON_LINUX)('a program kept under /tmp in the sandbox', () => {
  const program = mkdtempSync('/tmp/tea-prog-');
  const ws = outsideTmp('tea-prog-ws-');
  afterAll(() => {
    rmSync(program, { recursive: true, force: true });
    ws.cleanup();
  });

  it('runs, and cannot write where it lives', async () => {
    requireBwrap();
    const script = path.join(program, 'lib', 'run.js');
    mkdirSync(path.dirname(script), { recursive: true });
    writeFileSync(
      script,
      `const fs = require('node:fs');
       let wrote = 'no';
       try { fs.writeFileSync(${JSON.stringify(path.join(program, 'dropped.txt'))}, 'x'); wrote = 'yes'; } catch {}
       console.log('ran; wrote beside me: ' + wrote);`,
    );
    const launch = await new Sandbox({ mode: 'on' }).launch({
      command: process.execPath,
      args: [script],
      cwd: ws.dir,
      env: { PATH: process.env.PATH ?? '' },
      network: false,
    });
    expect(launch.sandbox).not.toBeNull();
    const r = spawnSync(launch.file, launch.args, { env: launch.env, encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('ran; wrote beside me: no');
    expect(existsSync(path.join(program, 'dropped.txt'))).toBe(false);
  });
});

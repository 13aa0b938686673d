/**
 * The sandbox end to end: `tea -p` with a scripted model that runs bash, a fake home
 * with credentials (outside /tmp), real bubblewrap, and `--sandbox` / `sandbox:`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import {
  loopbackServer,
  makeFakeHome,
  ON_LINUX,
  outsideTmp,
  requireBwrap,
} from '../tools/sandbox-helpers.js';

const KEY = 'sk-e2e-sandbox-key-0123456789abcdef';
const DB_PASSWORD = 'pw-in-url-123456';
const HOOK = 'https://hooks.slack.com/services/T0000/B0000/XYZwebhooksecret';

describe.runIf(ON_LINUX)('tea -p and the shell sandbox', () => {
  let server: ModelServer;
  let fx: ReturnType<typeof outsideTmp>;
  let home: string;
  let work: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    requireBwrap();
    server = await startModelServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    fx = outsideTmp('tea-cli-sbx-');
    home = makeFakeHome(fx.dir);
    const teaHome = path.join(fx.dir, 'tea-data');
    mkdirSync(teaHome);
    writeFileSync(path.join(teaHome, 'config.yaml'), NO_MEMORY_JOBS);
    work = mkdtempSync(path.join(os.tmpdir(), 'tea-cli-sbx-work-'));
    env = {
      PATH: process.env.PATH,
      HOME: home,
      TEA_HOME: teaHome,
      OLLAMA_HOST: 'http://127.0.0.1:9',
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: server.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
      DATABASE_URL: `postgres://app:${DB_PASSWORD}@db.internal/app`,
      ALERTS: HOOK,
    };
  });
  afterEach(() => {
    fx.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  /** Runs `tea -p` with the model calling bash once per command; returns the tool results it saw. */
  async function runBash(commands: string[], flags: string[] = [], runEnv = env) {
    server.reset();
    let first = reply();
    for (const command of commands) first = first.toolCall('bash', { command });
    server.script(first, reply().text('done'));
    const r = await runTea(['-p', 'go', '--allow', 'bash', ...flags], { env: runEnv, cwd: work });
    const results = server.requests[1]
      ? wireMessages(server.requests[1].body)
          .filter((m) => m.role === 'tool')
          .map(wireText)
      : [];
    return { ...r, results };
  }

  it('by default (auto, bwrap present): no key in /proc/$PPID/environ or env, credentials hidden, home read-only', async () => {
    const r = await runBash([
      "tr '\\0' '\\n' < /proc/$PPID/environ; echo ---; env",
      'cat ~/.ssh/id_rsa; echo evil >> ~/.bashrc',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('sandbox');
    const [environ, creds] = r.results;
    expect(environ).toContain(`HOME=${home}`);
    for (const secret of [KEY, DB_PASSWORD, 'XYZwebhooksecret']) expect(environ).not.toContain(secret);
    expect(creds).toContain('id_rsa: No such file or directory');
    expect(creds).toContain(`${home}/.bashrc: Read-only file system`);
    expect(creds).not.toContain('fake-key-material');
    expect(readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('# the real bashrc\n');
  });

  it('--sandbox off runs unsandboxed: /proc/$PPID is Tea itself (the issue), the env is still scrubbed', async () => {
    const r = await runBash(["tr '\\0' '\\n' < /proc/$PPID/environ; echo ---; env"], ['--sandbox', 'off']);
    const [parent, own] = (r.results[0] ?? '').split('\n---\n');
    expect(parent).toContain(`OPENAI_API_KEY=${KEY}`);
    expect(own).toContain(`HOME=${home}`);
    for (const secret of [KEY, DB_PASSWORD, 'XYZwebhooksecret']) expect(own).not.toContain(secret);
  });

  it('sandbox: off in the config does the same, and --sandbox on overrides it', async () => {
    writeFileSync(path.join(env.TEA_HOME!, 'config.yaml'), `${NO_MEMORY_JOBS}sandbox: off\n`);
    const off = await runBash(['cat ~/.ssh/id_rsa']);
    expect(off.results[0]).toContain('fake-key-material');
    const on = await runBash(['cat ~/.ssh/id_rsa'], ['--sandbox', 'on']);
    expect(on.results[0]).toContain('No such file or directory');
  });

  describe('without bwrap on PATH', () => {
    let bin: string;
    beforeEach(() => {
      bin = path.join(fx.dir, 'bin');
      mkdirSync(bin);
      symlinkSync('/bin/bash', path.join(bin, 'bash'));
    });

    it('auto warns once on stderr and runs the commands unsandboxed', async () => {
      const r = await runBash(['echo one', 'echo two'], [], { ...env, PATH: bin });
      expect(r.code).toBe(0);
      expect(r.results).toEqual(['exit code: 0\none', 'exit code: 0\ntwo']);
      const warnings = r.stderr.split('\n').filter((line) => line.includes('the shell sandbox is off'));
      expect(warnings).toEqual([
        'tea: warning: the shell sandbox is off: bubblewrap (bwrap) is not on PATH; commands run unsandboxed (install bubblewrap, or set `sandbox: off` to silence this)',
      ]);
    });

    it('--sandbox on refuses to run them, with the fix', async () => {
      const r = await runBash(['echo one'], ['--sandbox', 'on'], { ...env, PATH: bin });
      expect(r.results[0]).toMatch(
        /^\[ERROR\] Refusing to run: the sandbox is on, but bubblewrap \(bwrap\) is not on PATH\nHint: install bubblewrap/,
      );
      // The hint names the config file of this TEA_HOME, not ~/.tea/config.yaml.
      expect(r.results[0]).toContain(
        `or set \`sandbox: auto\` in ${env.TEA_HOME}/config.yaml (or pass --sandbox auto)`,
      );
    });
  });

  it('a network rule from --allow lets matching commands reach a loopback server', async () => {
    const web = await loopbackServer();
    try {
      const command = `node -e "fetch('${web.url}').then(r => r.text()).then(console.log, e => console.log('failed', e.cause?.code))"`;
      const off = await runBash([command]);
      expect(off.results[0]).toContain('failed ECONNREFUSED');
      const on = await runBash([command], ['--allow', 'network:node *']);
      expect(on.results[0]).toBe('exit code: 0\nhello from loopback');
      expect(web.hits()).toBe(1);
    } finally {
      await web.close();
    }
  });

  describe('tea config and tea config check say whether the sandbox works here', () => {
    const version = () =>
      /bubblewrap (\S+)/.exec(execFileSync(requireBwrap(), ['--version'], { encoding: 'utf8' }))?.[1];
    const config = (runEnv = env) => runTea(['config'], { env: runEnv, cwd: work });
    const json = async (runEnv = env) => {
      const r = await runTea(['config', '--json'], { env: runEnv, cwd: work });
      expect(r.code).toBe(0);
      return (JSON.parse(r.stdout) as { sandbox: Record<string, unknown> }).sandbox;
    };
    const check = (runEnv = env) => {
      server.script(reply().text('ok'));
      return runTea(['config', 'check'], { env: runEnv, cwd: work });
    };
    /** A PATH with bash and, when given, a `bwrap` script. */
    const pathWith = (bwrapScript?: string) => {
      const bin = path.join(fx.dir, 'bin');
      mkdirSync(bin);
      symlinkSync('/bin/bash', path.join(bin, 'bash'));
      if (bwrapScript) writeFileSync(path.join(bin, 'bwrap'), bwrapScript, { mode: 0o755 });
      return { ...env, PATH: bin };
    };

    it('auto with a working bubblewrap: its version, sandboxed', async () => {
      const v = version();
      expect(v).toMatch(/^\d+\.\d+/);
      const r = await config();
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(
        `sandbox:\n  mode: auto\n  network: false\n  status: auto (bubblewrap ${v} works)\n  sandboxed: true\n`,
      );
      // The JSON keeps the existing fields and their types; the state is added beside them.
      expect(await json()).toEqual({
        mode: 'auto',
        network: false,
        status: `auto (bubblewrap ${v} works)`,
        sandboxed: true,
      });
      const c = await check();
      expect(c.code).toBe(0);
      expect(c.stdout).toContain(`config: valid\nsandbox: auto (bubblewrap ${v} works)\n`);
    });

    it('auto without bubblewrap: not found, commands run unsandboxed; on: refused, and check fails', async () => {
      const noBwrap = pathWith();
      expect(await json(noBwrap)).toMatchObject({
        mode: 'auto',
        status: 'auto (bubblewrap not found: commands run unsandboxed)',
        sandboxed: false,
      });
      const auto = await check(noBwrap);
      expect(auto.code).toBe(0);
      expect(auto.stdout).toContain('sandbox: auto (bubblewrap not found: commands run unsandboxed)\n');
      writeFileSync(path.join(env.TEA_HOME!, 'config.yaml'), `${NO_MEMORY_JOBS}sandbox: on\n`);
      const on = await check(noBwrap);
      expect(on.stdout).toContain('sandbox: on (bubblewrap not found: shell commands are refused)\n');
      expect(on.stdout).toContain('main_model: ok');
      expect(on.code).toBe(1);
    });

    it('a bubblewrap that does not work says why; off says commands run unsandboxed', async () => {
      const broken = pathWith(
        '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n',
      );
      expect(await json(broken)).toMatchObject({
        status: `auto (${path.join(fx.dir, 'bin', 'bwrap')} does not work here: bwrap: No permissions to create new namespace: commands run unsandboxed)`,
        sandboxed: false,
      });
      writeFileSync(path.join(env.TEA_HOME!, 'config.yaml'), `${NO_MEMORY_JOBS}sandbox: off\n`);
      expect(await json()).toEqual({
        mode: 'off',
        network: false,
        status: 'off (shell commands run unsandboxed)',
        sandboxed: false,
      });
    });
  });

  it('bad values name the file, the key and the fix; a bad flag is a usage error', async () => {
    const file = path.join(env.TEA_HOME!, 'config.yaml');
    writeFileSync(file, 'sandbox: maybe\n');
    const bad = await runTea(['-p', 'go'], { env, cwd: work });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${file}: sandbox: expected auto, on or off`);
    expect(bad.stderr).toContain('Fix: use `sandbox: auto`');
    const flag = await runTea(['-p', 'go', '--sandbox', 'maybe'], { env, cwd: work });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      "tea: option '--sandbox <mode>' argument 'maybe' is invalid: expected auto, on or off (see tea --help)\n",
    );
  });
});

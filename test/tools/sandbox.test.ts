/**
 * bash, bg_start and which inside real bubblewrap: credentials hidden, writes only in
 * the workspace, no view of Tea through /proc, no network unless a rule allows it.
 * Every "refused" case is paired with the same command unsandboxed, which succeeds.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execTools } from '../../src/tools/builtin/exec.js';
import { PermissionPolicy, type PermissionRule } from '../../src/tools/permissions.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import { Sandbox, type SandboxMode, type SandboxSettings } from '../../src/tools/sandbox/index.js';
import type { ToolContext } from '../../src/tools/types.js';
import { call, makeCtx, tempDir } from './helpers.js';
import {
  FAKE_KEY,
  loopbackServer,
  makeFakeHome,
  ON_LINUX,
  outsideTmp,
  requireBwrap,
} from './sandbox-helpers.js';

const OPENAI_KEY = 'sk-proj-sandboxtest0123456789abcdef';
const DB_PASSWORD = 'hunter2-db-password';

describe.runIf(ON_LINUX)('the shell sandbox (bubblewrap)', () => {
  const fx = outsideTmp('tea-sbx-');
  const home = makeFakeHome(fx.dir);
  const teaHome = path.join(fx.dir, 'tea-data');
  const outside = path.join(fx.dir, 'outside');
  const saved = {
    HOME: process.env.HOME,
    OPENAI_API_KEY: process.env.OPENAI_API_KEY,
    DB: process.env.DATABASE_URL,
  };

  beforeAll(() => {
    requireBwrap();
    mkdirSync(teaHome);
    mkdirSync(outside);
    writeFileSync(path.join(teaHome, 'tea.db'), 'sessions and tokens');
    // The programs see this home; the scrub must drop the key and the password URL.
    process.env.HOME = home;
    process.env.OPENAI_API_KEY = OPENAI_KEY;
    process.env.DATABASE_URL = `postgres://app:${DB_PASSWORD}@db.internal:5432/app`;
  });
  afterAll(() => {
    for (const [name, value] of Object.entries({
      HOME: saved.HOME,
      OPENAI_API_KEY: saved.OPENAI_API_KEY,
      DATABASE_URL: saved.DB,
    })) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    fx.cleanup();
  });

  function registry(mode: SandboxMode, extra: Partial<SandboxSettings> = {}): ToolRegistry {
    const sandbox = new Sandbox({ mode, teaHome, ...extra });
    const reg = new ToolRegistry();
    reg.registerAll(execTools({ sandbox, bashKillGraceMs: 100, bashPipeDrainMs: 100 }));
    return reg;
  }

  function run(
    reg: ToolRegistry,
    cwd: string,
    name: string,
    args: Record<string, unknown>,
    ctx: Partial<ToolContext> = {},
  ): Promise<ToolRunResult> {
    return runTool(reg, call(name, args), makeCtx(cwd, ctx));
  }

  const bash = (reg: ToolRegistry, cwd: string, command: string, ctx: Partial<ToolContext> = {}) =>
    run(reg, cwd, 'bash', { command }, ctx);

  it("hides credentials and Tea's data home; unsandboxed they are readable", async () => {
    const cwd = await tempDir();
    const read = `cat ~/.ssh/id_rsa; cat ~/.aws/credentials; cat ~/.netrc; cat ~/.tea/config.yaml; cat ${teaHome}/tea.db; ls -A ~/.ssh | wc -l`;
    const boxed = await bash(registry('on'), cwd, read);
    for (const secret of [
      'fake-key-material',
      'aws_secret_access_key',
      'fake-netrc-pw',
      'sk-fake-tea-config',
      'sessions and tokens',
    ]) {
      expect(boxed.output).not.toContain(secret);
    }
    expect(boxed.output).toMatch(/\n0$|\n0\n/);
    expect(boxed.output).toContain('Sandbox: ~/.ssh, ~/.aws, ~/.netrc, ~/.tea');
    const plain = await bash(registry('off'), cwd, read);
    expect(plain.output).toContain('fake-key-material');
    expect(plain.output).toContain('sessions and tokens');
  });

  it('keeps ~/.ssh hidden when the workspace is the home directory itself', async () => {
    const reg = registry('on');
    const r = await bash(reg, home, 'echo made > notes.txt && cat notes.txt; cat .ssh/id_rsa');
    expect(r.output).toMatch(/^exit code: 1\nmade\ncat: \.ssh\/id_rsa: No such file or directory/);
    expect(readFileSync(path.join(home, 'notes.txt'), 'utf8')).toBe('made\n');
    expect(readFileSync(path.join(home, '.ssh', 'id_rsa'), 'utf8')).toBe(FAKE_KEY);
  });

  it('writes only in the workspace and added roots: ~/.bashrc and other paths are read-only', async () => {
    const cwd = await tempDir();
    const extra = path.join(fx.dir, 'extra-root');
    mkdirSync(extra);
    const command = `echo evil >> ~/.bashrc; echo x > ${outside}/a.txt; echo root > ${extra}/r.txt; echo ws > ws.txt`;
    const boxed = await bash(registry('on'), cwd, `${command}; false`, { allowedRoots: [extra] });
    expect(boxed.output).toContain(`${home}/.bashrc: Read-only file system`);
    expect(boxed.output).toContain(`${outside}/a.txt: Read-only file system`);
    expect(boxed.output).toContain('Sandbox: the sandbox lets commands write only in');
    expect(readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('# the real bashrc\n');
    expect(existsSync(path.join(outside, 'a.txt'))).toBe(false);
    expect(readFileSync(path.join(extra, 'r.txt'), 'utf8')).toBe('root\n');
    expect(readFileSync(path.join(cwd, 'ws.txt'), 'utf8')).toBe('ws\n');
    // The same command unsandboxed does write outside (the reproduction of the issue).
    await bash(registry('off'), cwd, `echo x > ${outside}/a.txt`);
    expect(existsSync(path.join(outside, 'a.txt'))).toBe(true);
  });

  it("keeps the repository's hooks and config read-only (no planting commands for git outside); commits work", async () => {
    const cwd = await tempDir();
    const reg = registry('on');
    await bash(registry('off'), cwd, 'git init -q && rm -rf .git/hooks');
    const r = await bash(
      reg,
      cwd,
      [
        'echo "#!/bin/sh" > .git/hooks/post-commit',
        'git config core.fsmonitor "touch pwned"',
        'echo a > a.txt && git add a.txt && git -c user.name=t -c user.email=t@e commit -qm one && git log --format=%s',
      ].join('; '),
    );
    expect(r.output).toContain('.git/hooks/post-commit: Read-only file system');
    expect(r.output).toContain('could not write config file .git/config');
    expect(r.output).toContain("(but not the repository's .git/hooks and .git/config)");
    expect(r.output).toMatch(/\none$|\none\n/);
    expect(existsSync(path.join(cwd, '.git', 'hooks', 'post-commit'))).toBe(false);
    expect(readFileSync(path.join(cwd, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
  });

  it('runs builds, scripts and npm test in a workspace under /tmp, with a private /tmp', async () => {
    const cwd = await tempDir();
    writeFileSync(
      path.join(cwd, 'script.js'),
      "require('fs').writeFileSync('from-script.txt', 'script ran');\n",
    );
    writeFileSync(
      path.join(cwd, 'package.json'),
      JSON.stringify({
        name: 'w',
        version: '1.0.0',
        scripts: { test: 'node script.js && echo tests passed' },
      }),
    );
    const marker = `tea-sbx-private-${process.pid}`;
    const r = await bash(
      registry('on'),
      cwd,
      `node -e "require('fs').writeFileSync('made.txt', 'ok')" && npm test --silent && echo t > /tmp/${marker} && cat /tmp/${marker}`,
    );
    expect(r.output).toBe('exit code: 0\ntests passed\nt');
    expect(readFileSync(path.join(cwd, 'made.txt'), 'utf8')).toBe('ok');
    expect(readFileSync(path.join(cwd, 'from-script.txt'), 'utf8')).toBe('script ran');
    expect(existsSync(path.join('/tmp', marker))).toBe(false);
  });

  it('shows neither Tea nor its secrets through /proc, and runs without capabilities', async () => {
    const cwd = await tempDir();
    const r = await bash(
      registry('on'),
      cwd,
      `tr '\\0' '\\n' < /proc/$PPID/environ; echo "pid=$$ ppid=$PPID"; grep CapEff /proc/self/status; ls /proc | grep -c '^[0-9]'`,
    );
    expect(r.output).not.toContain(OPENAI_KEY);
    expect(r.output).not.toContain(DB_PASSWORD);
    expect(r.output).not.toContain('DATABASE_URL');
    expect(r.output).toContain(`HOME=${home}`);
    expect(r.output).toContain('pid=2 ppid=1');
    // No capabilities, and only bwrap's init, bash, ls and grep in /proc: nothing of the host's.
    const processes = /CapEff:\s+0000000000000000\n(\d+)\n/.exec(r.output)?.[1];
    expect(Number(processes)).toBeGreaterThan(0);
    expect(Number(processes)).toBeLessThan(8);
  });

  describe('network', () => {
    let server: Awaited<ReturnType<typeof loopbackServer>>;
    beforeAll(async () => {
      server = await loopbackServer();
    });
    afterAll(() => server.close());

    const fetchNode = () =>
      `node -e "fetch('${server.url}').then(r => r.text()).then(t => console.log('node:', t), e => { console.log('node fetch failed:', e.cause?.code ?? e.message); process.exit(1) })"`;
    const fetchBoth = () => `curl -sS --max-time 5 ${server.url}; ${fetchNode()}`;
    const policy = (mode: 'ask' | 'yolo', rules: PermissionRule[] = []) => ({
      permissions: new PermissionPolicy(mode, rules),
    });

    it('is off by default: a server on loopback is out of reach, with a note saying how to allow it', async () => {
      const cwd = await tempDir();
      const r = await bash(registry('on'), cwd, fetchBoth(), policy('ask'));
      expect(r.output).toMatch(/^exit code: 1\ncurl: \(7\) Failed to connect/);
      expect(r.output).toContain('node fetch failed: ECONNREFUSED');
      expect(r.output).toContain('Sandbox: network is off inside the sandbox.');
      expect(server.hits()).toBe(0);
    });

    it('a network rule for the command, yolo mode or `network: true` let it through; a deny rule wins', async () => {
      const cwd = await tempDir();
      const allowCurl = policy('ask', [{ tool: 'network', pattern: 'curl *', action: 'allow' }]);
      const viaRule = await bash(registry('on'), cwd, `curl -sS --max-time 5 ${server.url}`, allowCurl);
      expect(viaRule.output).toBe('exit code: 0\nhello from loopback');
      const otherCommand = await bash(registry('on'), cwd, fetchNode(), allowCurl);
      expect(otherCommand.output).toMatch(/^exit code: 1\nnode fetch failed: ECONNREFUSED/);
      const yolo = await bash(registry('on'), cwd, fetchNode(), policy('yolo'));
      expect(yolo.output).toBe('exit code: 0\nnode: hello from loopback');
      const configured = await bash(registry('on', { network: true }), cwd, fetchNode(), policy('ask'));
      expect(configured.output).toBe('exit code: 0\nnode: hello from loopback');
      const denied = await bash(
        registry('on', { network: true }),
        cwd,
        fetchNode(),
        policy('yolo', [{ tool: 'network', action: 'deny' }]),
      );
      expect(denied.output).toMatch(/^exit code: 1\nnode fetch failed: ECONNREFUSED/);
      expect(server.hits()).toBe(3);
    });

    it('the note comes also when curl fails silently: -s with the status echoed, or its exit code alone', async () => {
      const cwd = await tempDir();
      const before = server.hits();
      const echoed = await bash(registry('on'), cwd, `curl -s ${server.url} ; echo rc=$?`, policy('ask'));
      expect(echoed.output).toBe(
        'exit code: 0\nrc=7\nSandbox: network is off inside the sandbox, which may be why curl failed. ' +
          'The user can allow it for matching commands with a permission rule { tool: network, pattern: "curl *", action: allow } ' +
          "(or --allow 'network:curl *'), or for all with `sandbox: { network: true }`",
      );
      const quiet = await bash(registry('on'), cwd, `curl -s ${server.url}`, policy('ask'));
      expect(quiet.output).toMatch(
        /^exit code: 7\n\(no output\)\nSandbox: network is off inside the sandbox, which may be why curl failed \(exit code 7\)\. /,
      );
      // Without -s, curl's own message is the evidence (the note as before).
      const loud = await bash(registry('on'), cwd, `curl ${server.url} ; echo rc=$?`, policy('ask'));
      expect(loud.output).toContain('Failed to connect');
      expect(loud.output).toContain('Sandbox: network is off inside the sandbox. The user can allow it');
      expect(server.hits() - before).toBe(0);
    });

    it('no network note when the network was not the problem', async () => {
      const cwd = await tempDir();
      const before = server.hits();
      // Network given (yolo): curl reaches the server, the line fails later for another reason.
      const reached = await bash(
        registry('on'),
        cwd,
        `curl -s ${server.url} ; echo rc=$?; false`,
        policy('yolo'),
      );
      expect(reached.output).toBe('exit code: 1\nhello from loopbackrc=0');
      // A failing line that runs no network program (grep only names curl), and a curl that worked.
      const notNetwork = await bash(
        registry('on'),
        cwd,
        'grep -r curl . ; echo rc=$?; exit 7',
        policy('ask'),
      );
      expect(notNetwork.output).toBe('exit code: 7\nrc=1');
      const worked = await bash(registry('on'), cwd, 'curl --version >/dev/null; echo rc=$?', policy('ask'));
      expect(worked.output).toBe('exit code: 0\nrc=0');
      // Unsandboxed, the network works and nothing is said about a sandbox.
      const plain = await bash(registry('off'), cwd, `curl -s ${server.url} ; echo rc=$?`, policy('ask'));
      expect(plain.output).toBe('exit code: 0\nhello from loopbackrc=0');
      expect(server.hits() - before).toBe(2);
    });
  });

  it('bg_start runs its command in the sandbox too', async () => {
    const cwd = await tempDir();
    const reg = registry('on');
    const started = await run(reg, cwd, 'bg_start', {
      command: `cat ~/.ssh/id_rsa; echo bg > ~/bg.txt; echo "ppid=$PPID"; echo ok > bg-ws.txt; sleep 0.3`,
    });
    expect(started.output).toMatch(/^Started bg1: running, pid \d+/);
    const out = await run(reg, cwd, 'bg_output', { id: 'bg1', wait_ms: 3000 });
    await run(reg, cwd, 'bg_kill', { id: 'bg1' });
    const all = `${started.output}\n${out.output}`;
    expect(all).toContain('id_rsa: No such file or directory');
    expect(all).toContain(`${home}/bg.txt: Read-only file system`);
    expect(all).toContain('ppid=1');
    expect(all).not.toContain('fake-key-material');
    expect(existsSync(path.join(home, 'bg.txt'))).toBe(false);
    expect(readFileSync(path.join(cwd, 'bg-ws.txt'), 'utf8')).toBe('ok\n');
  });

  it('which runs the --version probe sandboxed', async () => {
    const cwd = await tempDir();
    const bin = path.join(fx.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const tool = path.join(bin, 'teafaketool');
    writeFileSync(tool, `#!/bin/sh\necho "teafaketool 1.0"\necho pwned > "${outside}/pwned.txt"\n`);
    chmodSync(tool, 0o755);
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath}`;
    try {
      const boxed = await run(registry('on'), cwd, 'which', { name: 'teafaketool' });
      expect(boxed.output).toBe(`${tool}\nversion: teafaketool 1.0`);
      expect(existsSync(path.join(outside, 'pwned.txt'))).toBe(false);
      await run(registry('off'), cwd, 'which', { name: 'teafaketool' });
      expect(existsSync(path.join(outside, 'pwned.txt'))).toBe(true);
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it('on: refuses to run without bwrap; auto: warns once and runs unsandboxed', async () => {
    const cwd = await tempDir();
    const marker = path.join(outside, 'ran-anyway.txt');
    const refused = await bash(registry('on', { pathEnv: '/nonexistent' }), cwd, `echo x > ${marker}`);
    expect(refused.isError).toBe(true);
    expect(refused.output).toBe(
      '[ERROR] Refusing to run: the sandbox is on, but bubblewrap (bwrap) is not on PATH\n' +
        `Hint: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), or set \`sandbox: auto\` in ${teaHome}/config.yaml (or pass --sandbox auto) to run unsandboxed when it is missing`,
    );
    expect(existsSync(marker)).toBe(false);

    const warnings: string[] = [];
    const reg = registry('auto', { pathEnv: '/nonexistent', warn: (m) => warnings.push(m) });
    const first = await bash(reg, cwd, `echo x > ${marker}`);
    const second = await bash(reg, cwd, 'echo again');
    expect(first.output).toBe('exit code: 0\n(no output)');
    expect(second.output).toBe('exit code: 0\nagain');
    expect(existsSync(marker)).toBe(true);
    expect(warnings).toEqual([
      'the shell sandbox is off: bubblewrap (bwrap) is not on PATH; commands run unsandboxed (install bubblewrap, or set `sandbox: off` to silence this)',
    ]);
  });
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scrubEnv } from '../../src/tools/builtin/env-scrub.js';
import { type ExecToolOptions, execTools } from '../../src/tools/builtin/exec.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import { buildSpec } from '../../src/tools/schema.js';
import type { ToolContext } from '../../src/tools/types.js';
import { call, diesSoon, isAlive, makeCtx, tempDir } from './helpers.js';

const fast: ExecToolOptions = {
  bashKillGraceMs: 100,
  bashPipeDrainMs: 100,
  bashSampleMs: 100,
  bashIdleGraceMs: 200,
};

async function bash(
  cwd: string,
  args: Record<string, unknown>,
  opts: { tools?: ExecToolOptions; ctx?: Partial<ToolContext> } = {},
): Promise<ToolRunResult> {
  const registry = new ToolRegistry();
  registry.registerAll(execTools({ ...fast, ...opts.tools }));
  return runTool(registry, call('bash', args), makeCtx(cwd, opts.ctx));
}

async function waitForPid(file: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (/^\d+\n/.test(text)) return Number(text.trim());
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no pid in ${file}`);
}

describe('bash', () => {
  it('runs in the workspace and reports the exit code with combined output', async () => {
    const cwd = await tempDir();
    const r = await bash(cwd, { command: 'pwd; echo out; sleep 0.05; echo err >&2; exit 3' });
    expect(r).toEqual({ output: `exit code: 3\n${cwd}\nout\nerr`, isError: false, status: 'ok' });
    const quiet = await bash(cwd, { command: 'true', description: 'nothing' });
    expect(quiet.output).toBe('exit code: 0\n(no output)');
  });

  it('closes stdin so reading commands do not hang', async () => {
    const cwd = await tempDir();
    const r = await bash(cwd, { command: 'cat; read line || echo "stdin closed"' });
    expect(r.output).toBe('exit code: 0\nstdin closed');
  });

  it('kills the whole process group when it sits idle at the deadline', async () => {
    const cwd = await tempDir();
    const r = await bash(cwd, {
      command: 'echo started; sleep 30 & echo $! > child.pid; wait',
      timeout_ms: 300,
    });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(
      /^\[ERROR\] killed: timeout after 0\.3 s \(idle[^)]*\)\nstarted\nHint: it sat idle/,
    );
    const pid = Number((await readFile(join(cwd, 'child.pid'), 'utf8')).trim());
    expect(await diesSoon(pid)).toBe(true);
  });

  it('escalates to SIGKILL for children that ignore SIGTERM', async () => {
    const cwd = await tempDir();
    const controller = new AbortController();
    const command = `bash -c 'trap "" TERM; echo $$ > child.pid; while true; do sleep 0.02; done' & wait`;
    const pending = bash(cwd, { command }, { ctx: { signal: controller.signal } });
    const pid = await waitForPid(join(cwd, 'child.pid'));
    controller.abort();
    const r = await pending;
    expect(r.status).toBe('cancelled');
    expect(r.output).toMatch(/^\[CANCELLED\] bash was cancelled by the user\nkilled: cancelled/);
    expect(await diesSoon(pid)).toBe(true);
  });

  it('stops on cancel and reports it as cancelled', async () => {
    const cwd = await tempDir();
    const controller = new AbortController();
    const pending = bash(
      cwd,
      { command: 'echo working; sleep 30 & echo $! > child.pid; wait' },
      { ctx: { signal: controller.signal } },
    );
    const pid = await waitForPid(join(cwd, 'child.pid'));
    expect(await isAlive(pid)).toBe(true);
    controller.abort();
    const r = await pending;
    expect(r.status).toBe('cancelled');
    expect(r.output).toBe('[CANCELLED] bash was cancelled by the user\nkilled: cancelled\nworking');
    expect(await diesSoon(pid)).toBe(true);
  });

  it('keeps the head and tail of huge output', async () => {
    const cwd = await tempDir();
    const lines = await bash(cwd, { command: 'seq 1 30000' });
    expect(lines.status).toBe('ok');
    expect(lines.output.length).toBeLessThanOrEqual(30_000);
    expect(lines.output.startsWith('exit code: 0\n1\n2\n3\n')).toBe(true);
    expect(lines.output.endsWith('\n29999\n30000')).toBe(true);
    expect(lines.output).toMatch(/\n… \[\d+ lines \/ \d+ chars omitted\] …\n/);
  });

  it('returns when the shell exits even if a background job holds the output open', async () => {
    const cwd = await tempDir();
    const r = await bash(cwd, { command: 'sleep 5 & echo $! > bg.pid; echo done' });
    const pid = Number((await readFile(join(cwd, 'bg.pid'), 'utf8')).trim());
    try {
      expect(r.status).toBe('ok');
      expect(r.output).toBe(
        'exit code: 0\ndone\n(background processes still hold the output open; their later output is not captured)',
      );
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('validates timeout_ms', async () => {
    const cwd = await tempDir();
    const r = await bash(cwd, { command: 'true', timeout_ms: 700_000 });
    expect(r.output).toMatch(
      /^\[ERROR\] Invalid arguments for bash: timeout_ms: Too big: expected number to be <=600000/,
    );
  });
});

describe('bash environment', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  function plant(): void {
    process.env.OPENAI_API_KEY = 'sk-parent-openai';
    process.env.TEA_TEST_GITHUB_TOKEN = 'ghp-parent-token';
    process.env.AWS_REGION = 'us-east-1';
    process.env.MY_DB_PASSWORD = 'hunter2';
    process.env.TEA_TEST_PLAIN = 'visible';
  }

  it('drops secret-looking variables from the child environment', async () => {
    plant();
    const cwd = await tempDir();
    const r = await bash(cwd, { command: 'env' });
    expect(r.output).toContain('TEA_TEST_PLAIN=visible');
    expect(r.output).toContain('PATH=');
    for (const secret of ['sk-parent-openai', 'ghp-parent-token', 'us-east-1', 'hunter2']) {
      expect(r.output).not.toContain(secret);
    }
  });

  it('passes allow-listed names and everything when scrubbing is off', async () => {
    plant();
    const cwd = await tempDir();
    const allowed = await bash(
      cwd,
      { command: 'env' },
      { tools: { envAllow: ['TEA_TEST_GITHUB_TOKEN', 'AWS_*'] } },
    );
    expect(allowed.output).toContain('TEA_TEST_GITHUB_TOKEN=ghp-parent-token');
    expect(allowed.output).toContain('AWS_REGION=us-east-1');
    expect(allowed.output).not.toContain('sk-parent-openai');
    const off = await bash(cwd, { command: 'env' }, { tools: { envScrub: false } });
    expect(off.output).toContain('OPENAI_API_KEY=sk-parent-openai');
    expect(off.output).toContain('MY_DB_PASSWORD=hunter2');
  });
});

describe('scrubEnv', () => {
  it('drops secret-looking names, AWS_* and model keys, keeping the defaults and the allow-list', () => {
    const env = {
      HOME: '/home/u',
      PATH: '/usr/bin',
      SSH_AUTH_SOCK: '/tmp/agent.sock',
      GITHUB_TOKEN: 'ghp',
      aws_profile: 'dev',
      AWS_DEFAULT_REGION: 'eu-west-1',
      DEEPSEEK_API_KEY: 'sk-ds',
      SESSION_COOKIE: 'c',
      NPM_CONFIG_AUTHTOKEN: 't',
      MY_APP_SECRET: 's',
      KEEP_ME: undefined,
    };
    expect(scrubEnv(env)).toEqual({ HOME: '/home/u', PATH: '/usr/bin', SSH_AUTH_SOCK: '/tmp/agent.sock' });
    expect(Object.keys(scrubEnv(env, { allow: ['MY_APP_*', 'GITHUB_TOKEN'] })).sort()).toEqual([
      'GITHUB_TOKEN',
      'HOME',
      'MY_APP_SECRET',
      'PATH',
      'SSH_AUTH_SOCK',
    ]);
    expect(Object.keys(scrubEnv(env, { enabled: false }))).toHaveLength(10);
  });
});

describe('bash spec budget', () => {
  it('stays small enough to send on every request', () => {
    const tool = execTools().find((t) => t.name === 'bash')!;
    const spec = buildSpec(tool);
    expect(spec.description.length).toBeLessThanOrEqual(200);
    const props = spec.parameters.properties as Record<string, { description?: string }>;
    for (const [name, prop] of Object.entries(props)) {
      expect(prop.description?.length ?? 0, name).toBeLessThanOrEqual(60);
    }
    expect(JSON.stringify(spec).length).toBeLessThanOrEqual(700);
  });
});

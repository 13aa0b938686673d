/**
 * `tea -p` with prompts a rule answers: with a model, no request reaches it; with no
 * model configured, rules still work and any other prompt says how to configure one
 * and lists the rules. Runs the built CLI (npm run build first).
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv, runTea, TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages } from '../support/wire.js';

const t = useScriptedCli('sk-test', { config: 'memory:\n  extract: false\n' });
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });

describe('tea -p with a rule', () => {
  it('!command runs bash with no request to the model, shown as a tool call', async () => {
    // Under the permission policy like the model's call: print mode needs an allow rule (or --yolo).
    const r = await tea(['--allow', 'bash:echo*', '--verbose', '-p', '!echo from-the-rule']);
    expect(r.code).toBe(0);
    // stdout is what the command printed (the model's result keeps its `exit code: 0` line).
    expect(r.stdout).toBe('from-the-rule\n');
    expect(r.stderr).toContain('⏺ bash command="echo from-the-rule"');
    expect(t.server.requests).toHaveLength(0);
  });

  it('a command that exits non-zero: its output on stdout, its exit code on stderr, tea exits 1', async () => {
    const r = await tea(['--allow', 'bash:ls*', '-p', '!ls no-such-dir']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ls: .*no-such-dir.*\n$/);
    expect(r.stderr).toBe('tea: the command exited with code 2.\n');
    const quiet = await tea(['--allow', 'bash:true*', '-p', '!true']);
    expect([quiet.code, quiet.stdout, quiet.stderr]).toEqual([0, '', '']);
  });

  it("a rule's error is shown once, on stderr (exit 1)", async () => {
    const r = await tea(['--verbose', '-p', '/read nosuch.txt']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('No such file or directory: nosuch.txt')).toHaveLength(2);
    expect(r.stderr.split('Hint: the path does not exist')).toHaveLength(2);
  });

  it('the next turn (--continue) sends the call and its result to the model', async () => {
    expect((await tea(['--allow', 'bash:echo*', '-p', '!echo marker-77'])).code).toBe(0);
    t.server.script(reply().text('It printed marker-77.'));
    const r = await tea(['-p', '--continue', 'what did it print?']);
    expect(r.stdout).toContain('It printed marker-77.');
    const msgs = wireMessages(t.server.requests[0]!.body);
    const call = msgs.find((m) => m.tool_calls)?.tool_calls?.[0];
    expect(call?.function.name).toBe('bash');
    expect(JSON.parse(call!.function.arguments)).toEqual({ command: 'echo marker-77' });
    const result = msgs.find((m) => m.role === 'tool');
    expect(JSON.stringify(result?.content)).toContain('marker-77');
  });

  it('print mode refuses an rm the same way it refuses the model’s (exit 5)', async () => {
    writeFileSync(path.join(t.ctx.work, 'keep.txt'), 'x');
    const r = await tea(['--allow', 'bash:echo*', '-p', '!echo ok && rm keep.txt']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(
      'tea: refused bash (echo ok && rm keep.txt): needs approval (ask mode: exec tools need approval, and no allow rule covers `rm keep.txt`)',
    );
    expect(existsSync(path.join(t.ctx.work, 'keep.txt'))).toBe(true);
    expect(t.server.requests).toHaveLength(0);
  });

  it('json output carries the call and the text', async () => {
    const r = await tea(['-p', '--output-format', 'json', '/ls']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      reason: 'completed',
      iterations: 0,
      tool_calls: 1,
      result: expect.stringMatching(/empty directory/),
    });
    expect(t.server.requests).toHaveLength(0);
  });

  it('a user rule from the config runs its tool', async () => {
    writeFileSync(
      path.join(t.ctx.home, 'config.yaml'),
      "memory:\n  extract: false\nrules:\n  - { pattern: '^greet (\\w+)$', tool: bash, args: { command: 'echo hello-$1' } }\n",
    );
    const r = await tea(['--allow', 'bash:echo*', '-p', 'greet tea']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('hello-tea');
    expect(t.server.requests).toHaveLength(0);
  });

  it('a bad user rule is a config error naming the file, the key and the fix (exit 2)', async () => {
    writeFileSync(
      path.join(t.ctx.home, 'config.yaml'),
      "rules:\n  - { pattern: '^go$', tool: bash, args: { command: './go.sh $1' } }\n",
    );
    const r = await tea(['-p', 'go']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('tea-home/config.yaml: rules[0].args.command');
    expect(r.stderr).toMatch(
      /rules\[0\]\.args\.command: \$1 names capture 1, but the pattern has no captures\. Fix:/,
    );
  });
});

describe('tea -p with no model configured', () => {
  it('runs a rule, and answers another prompt with how to configure a model and the rules (exit 3)', async () => {
    const bare = cliEnv();
    try {
      writeFileSync(path.join(bare.work, 'readme.txt'), 'hello from the file\n');
      const read = await runTea(['-p', '/read readme.txt'], { env: bare.env, cwd: bare.work });
      expect(read.code).toBe(0);
      expect(read.stdout).toContain('hello from the file');
      const shell = await runTea(['--yolo', '-p', '!echo no-model-needed'], {
        env: bare.env,
        cwd: bare.work,
      });
      expect(shell.code).toBe(0);
      expect(shell.stdout).toContain('no-model-needed');
      const other = await runTea(['-p', 'hello'], { env: bare.env, cwd: bare.work });
      expect(other.code).toBe(3);
      expect(other.stderr).toMatch(/OPENAI_API_KEY/);
      expect(other.stderr).toMatch(/These commands work without a model/);
      expect(other.stderr).toMatch(/!<command>/);
      expect(other.stderr).toMatch(/\/grep <pattern> \[path\]/);
    } finally {
      bare.cleanup();
    }
  });
});

/** `tea` on a pseudo-terminal (util-linux `script`): types each line once `waits[i]` is on screen. */
function typeInto(env: CliEnv, lines: string[], waits: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', `${process.execPath} ${TEA_BIN}`, '/dev/null'], {
      env: env.env,
      cwd: env.work,
    });
    let screen = '';
    let typed = 0;
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      while (typed < lines.length && screen.includes(waits[typed]!)) child.stdin.write(`${lines[typed++]}\n`);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`interactive session did not finish; screen:\n${screen}`));
    }, 15_000);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(screen);
    });
  });
}

describe('tea in a terminal with no model configured', () => {
  it('starts, runs rules, lists them in /help and says how to configure a model for other prompts', async () => {
    const bare = cliEnv();
    try {
      writeFileSync(path.join(bare.work, 'todo.txt'), 'water the plants\n');
      const screen = await typeInto(
        bare,
        ['/read todo.txt', 'hello', '/help', '/exit'],
        ['no model configured (rules only', 'water the plants', 'OPENAI_API_KEY', '/grep <pattern> [path]'],
      );
      expect(screen).toContain('no model configured (rules only: /help lists them)');
      expect(screen).toContain('water the plants');
      expect(screen).toMatch(/no model is configured[\s\S]*These commands work without a model/i);
    } finally {
      bare.cleanup();
    }
  });
});

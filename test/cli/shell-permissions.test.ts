// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell command lines, where ${…} is shell syntax
/**
 * Shell permission rules end to end: `tea mcp serve --permission-mode read-only` with
 * `--allow 'bash:echo*'`, and `tea -p --allow 'bash:echo*'` against the scripted
 * model. Also: the shell parser is loaded only when a shell command is checked.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

/**
 * A module for `node --require` that logs each time `mvdan-sh` (the shell parser) is
 * required (the bundle loads its external packages with require()), to the file
 * named by TEA_LOAD_LOG.
 */
function loadLogger(): { args: string[]; log: string; loaded: () => boolean } {
  const log = path.join(t.ctx.home, 'loads.log');
  const hook = path.join(t.ctx.home, 'hook.cjs');
  writeFileSync(
    hook,
    [
      "const { appendFileSync } = require('node:fs');",
      "const Module = require('node:module');",
      'const load = Module._load;',
      'Module._load = function (request, ...rest) {',
      "  if (request === 'mvdan-sh') appendFileSync(process.env.TEA_LOAD_LOG, 'mvdan-sh\\n');",
      '  return load.call(this, request, ...rest);',
      '};',
    ].join('\n'),
  );
  return {
    args: ['--require', hook],
    log,
    loaded: () => existsSync(log) && readFileSync(log, 'utf8').includes('mvdan-sh'),
  };
}

type CallResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const text = (r: unknown) => (r as CallResult).content.map((c) => c.text ?? '').join('\n');

describe('tea mcp serve --permission-mode read-only --allow bash:echo*', () => {
  it('runs the allowed command alone, and refuses chained, substituted and writing forms', async () => {
    const hook = loadLogger();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        ...hook.args,
        TEA_BIN,
        'mcp',
        'serve',
        '--cwd',
        t.ctx.work,
        '--permission-mode',
        'read-only',
        '--allow',
        'bash:echo*',
        '--allow',
        'deny:bash:*curl*',
      ],
      env: { ...(t.ctx.env as Record<string, string>), TEA_LOAD_LOG: hook.log },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'tea-test', version: '1.0.0' });
    await client.connect(transport);
    const bash = (command: string) => client.callTool({ name: 'bash', arguments: { command } });
    try {
      expect(hook.loaded()).toBe(false);
      const ok = await bash('echo hi');
      expect(ok.isError).toBe(false);
      expect(text(ok)).toBe('exit code: 0\nhi');
      expect(hook.loaded()).toBe(true);

      const chained = await bash('echo hi; touch pwned');
      expect(chained.isError).toBe(true);
      expect(text(chained)).toMatch(
        /^\[DENIED\] bash \(echo hi; touch pwned\) is not allowed here \(read-only mode refuses `touch pwned`: it changes files\)/,
      );

      const nested = await bash("echo $(bash -c 'id > pwned')");
      expect(text(nested)).toMatch(
        /^\[DENIED\] bash .* is not allowed here \(read-only mode: exec tools are not allowed, and no allow rule covers `id`\)/,
      );

      const write = await bash('echo hi > pwned');
      expect(text(write)).toContain('read-only mode refuses `> pwned`: it writes a file');

      const quoted = await bash(`echo x && c''url http://127.0.0.1:9/`);
      expect(text(quoted)).toContain("rule deny bash:*curl* matches `c''url http://127.0.0.1:9/`");

      const hidden = await bash('echo ${X:-$(touch pwned)}');
      expect(text(hidden)).toMatch(/is not allowed here/);

      const background = await client.callTool({
        name: 'bg_start',
        arguments: { command: 'echo hi & touch pwned' },
      });
      expect(text(background)).toMatch(/^\[DENIED\] bg_start \(echo hi & touch pwned\) is not allowed here/);
    } finally {
      await client.close();
    }
    expect(existsSync(path.join(t.ctx.work, 'pwned'))).toBe(false);
  });
});

describe('tea -p --allow bash:echo*', () => {
  it('the model is told which sub-command needed approval and what --allow would cover it', async () => {
    t.server.script(
      reply().toolCall('bash', { command: 'echo hi && touch pwned' }),
      reply().toolCall('bash', { command: 'echo fine 2>&1' }),
      reply().text('done'),
    );
    const r = await runTea(['-p', 'go', '--allow', 'bash:echo*'], { env: t.ctx.env, cwd: t.ctx.work });
    // Done, but a call was refused: exit 5, and stderr says what would let it run.
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      /^tea: refused bash \(echo hi && touch pwned\): needs approval \(.*`touch pwned`\), which tea -p cannot ask for; to let it run, rerun with --allow 'bash:touch pwned\*' or --yolo\n$/,
    );
    const results = wireMessages(t.server.requests[2]!.body)
      .filter((m) => m.role === 'tool')
      .map((m) => wireText(m));
    expect(results).toEqual([
      "[DENIED] bash (echo hi && touch pwned) needs the user's approval (ask mode: exec tools need approval, and no allow rule covers `touch pwned`), and nobody can approve in this run.\n" +
        "Hint: say what you would have run; the user can rerun with --allow 'bash:touch pwned*' or --yolo.",
      'exit code: 0\nfine',
    ]);
    expect(existsSync(path.join(t.ctx.work, 'pwned'))).toBe(false);
  });

  it('a command that never reaches bash does not load the shell parser', async () => {
    const hook = loadLogger();
    const env = { ...t.ctx.env, TEA_LOAD_LOG: hook.log };
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [...hook.args, TEA_BIN, ...args], { env, cwd: t.ctx.work });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
        });
        child.stdin.end();
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stderr }));
      });
    expect(await run(['tools', 'list'])).toEqual({ code: 0, stderr: '' });
    t.server.script(reply().toolCall('list_dir', {}), reply().text('listed'));
    expect(await run(['-p', 'list the files'])).toEqual({ code: 0, stderr: '' });
    expect(hook.loaded()).toBe(false);
    t.server.script(reply().toolCall('bash', { command: 'echo x' }), reply().text('ran'));
    expect(await run(['-p', 'run it', '--allow', 'bash:echo*'])).toEqual({ code: 0, stderr: '' });
    expect(hook.loaded()).toBe(true);
  });
});

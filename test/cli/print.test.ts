import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/index.js';
import { cliEnv, NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const t = useScriptedCli('sk-test-secret-value-1234', { config: NO_MEMORY_JOBS });

const tea = (args: string[], input?: string) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work, input });

describe('tea -p', () => {
  it('prints the answer and exits 0', async () => {
    t.server.script(reply().text('Hello from the model.').usage(12, 5));
    const r = await tea(['-p', 'say hello']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('Hello from the model.\n');
    expect(r.code).toBe(0);
    const req = t.server.requests[0]!;
    expect(req.body.model).toBe('scripted-model');
    expect(req.headers.authorization).toBe('Bearer sk-test-secret-value-1234');
    const msgs = wireMessages(req.body);
    expect(wireText(msgs.at(-1)!)).toBe('say hello');
  });

  it('keeps the per-model token calibration between runs', async () => {
    t.server.script(reply().text('ok').usage(900, 2));
    expect((await tea(['-p', 'hello'])).code).toBe(0);
    const saved = JSON.parse(readFileSync(path.join(t.ctx.home, 'calibration.json'), 'utf8'));
    expect(JSON.stringify(saved)).toContain('scripted-model');
  });

  it('reads the prompt from piped stdin, and joins it to an argument', async () => {
    t.server.script(reply().text('a'), reply().text('b'));
    expect((await tea(['-p'], 'from stdin only\n')).code).toBe(0);
    expect((await tea(['-p', 'summarise this:'], 'line one\nline two\n')).code).toBe(0);
    const last = (i: number) => wireText(wireMessages(t.server.requests[i]!.body).at(-1)!);
    expect(last(0)).toBe('from stdin only');
    expect(last(1)).toBe('summarise this:\n\nline one\nline two');
  });

  it('--output-format json prints one result object', async () => {
    t.server.script(
      reply().toolCall('write_file', { path: 'a.txt', content: 'x' }).usage(10, 2),
      reply().text('Wrote it.').usage(20, 3),
    );
    const r = await tea(['-p', 'write a file', '--output-format', 'json', '--allow', 'write_file']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      type: 'result',
      reason: 'completed',
      result: 'Wrote it.',
      iterations: 2,
      tool_calls: 1,
      usage: { input_tokens: 30, output_tokens: 5 },
    });
    expect(out.session_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('--output-format stream-json prints one event per line', async () => {
    t.server.script(
      reply().thinking('hm').text('Hi').toolCall('list_dir', {}).usage(5, 1),
      reply().text('Done.'),
    );
    const r = await tea(['-p', 'go', '--output-format', 'stream-json']);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AgentEvent);
    const kinds = new Set(events.map((e) => e.type));
    for (const k of [
      'turn_start',
      'thinking_delta',
      'text_delta',
      'tool_update',
      'usage',
      'turn_end',
      'done',
    ]) {
      expect(kinds.has(k as AgentEvent['type'])).toBe(true);
    }
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'completed', text: 'Done.' });
  });

  it('--continue and --resume carry the earlier conversation', async () => {
    t.server.script(reply().text('first'), reply().text('second'), reply().text('third'));
    const first = JSON.parse((await tea(['-p', 'one', '--output-format', 'json'])).stdout);
    expect((await tea(['-p', 'two', '--continue'])).code).toBe(0);
    expect((await tea(['-p', 'three', '--resume', first.session_id.slice(0, 8)])).code).toBe(0);
    const texts = wireMessages(t.server.requests[2]!.body)
      .slice(1)
      .map((m) => `${m.role}:${wireText(m)}`);
    expect(texts).toEqual(['user:one', 'assistant:first', 'user:two', 'assistant:second', 'user:three']);
  });

  it('--max-turns stops the loop and exits 4', async () => {
    for (let i = 0; i < 2; i++) t.server.script(reply().toolCall('list_dir', { path: `.${'/.'.repeat(i)}` }));
    const r = await tea(['-p', 'loop', '--max-turns', '2']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/after 2 model calls/);
    expect(t.server.requests).toHaveLength(2);
  });

  it('--model overrides the model for one run', async () => {
    t.server.script(reply().text('ok'));
    expect((await tea(['-p', 'x', '--model', 'other-model'])).code).toBe(0);
    expect(t.server.requests[0]!.body.model).toBe('other-model');
  });

  it('--profile picks a named profile from config.yaml', async () => {
    appendFileSync(
      path.join(t.ctx.home, 'config.yaml'),
      `profiles:\n  local:\n    provider: openai\n    base_url: ${t.server.openaiBaseUrl}\n    model: profile-model\n`,
    );
    t.server.script(reply().text('ok'));
    const r = await tea(['-p', 'x', '--profile', 'local']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(t.server.requests[0]!.body.model).toBe('profile-model');
  });

  it('--cwd sets the workspace the tools work in', async () => {
    t.server.script(
      reply().toolCall('write_file', { path: 'made-here.txt', content: 'hi' }),
      reply().text('ok'),
    );
    const r = await runTea(['-p', 'write', '--cwd', t.ctx.work, '--yolo'], {
      env: t.ctx.env,
      cwd: t.ctx.home,
    });
    expect(r.code).toBe(0);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(path.join(t.ctx.work, 'made-here.txt'), 'utf8')).toBe('hi');
  });

  it('denies writes and commands in -p unless --allow or --yolo says otherwise', async () => {
    t.server.script(
      reply().toolCall('write_file', { path: 'x.txt', content: 'no' }),
      reply().text('I could not write.'),
    );
    expect((await tea(['-p', 'write x'])).code).toBe(5);
    const denied = wireText(wireMessages(t.server.requests[1]!.body).find((m) => m.role === 'tool')!);
    expect(denied).toMatch(/^\[DENIED\] write_file \(x\.txt\) needs the user's approval/);
    expect(denied).toMatch(/--allow 'write_file:x\.txt' or --yolo/);
    const { existsSync } = await import('node:fs');
    expect(existsSync(path.join(t.ctx.work, 'x.txt'))).toBe(false);

    t.server.script(
      reply().toolCall('write_file', { path: 'x.txt', content: 'yes' }),
      reply().text('Written.'),
    );
    expect((await tea(['-p', 'write x', '--allow', 'write_file:*.txt'])).code).toBe(0);
    expect(existsSync(path.join(t.ctx.work, 'x.txt'))).toBe(true);

    const bad = await tea(['-p', 'x', '--permission-mode', 'sometimes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/expected read-only, ask, auto-edit or yolo/);
  });

  it('reports every refused call on stderr with the exact --allow that runs it, and exits 5', async () => {
    const name = "it's here.txt";
    t.server.script(
      reply().toolCall('write_file', { path: name, content: 'x' }),
      reply().toolCall('bash', { command: 'npm test -- --run parser' }),
      reply().text('I could not do either.'),
    );
    // stderr is a pipe here, not a terminal: the refusals are shown all the same.
    const r = await tea(['-p', 'write and test']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('I could not do either.\n');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      `tea: refused write_file (${name}): needs approval, which tea -p cannot ask for; to let it run, rerun with --allow 'write_file:it'\\''s here.txt' or --yolo`,
    );
    expect(lines[1]).toMatch(
      /^tea: refused bash \(npm test -- --run parser\): needs approval \(.+\), which tea -p/,
    );
    expect(lines[1]).toMatch(/; to let it run, rerun with --allow 'bash:npm test\*' or --yolo$/);

    // The flag, as a shell reads it, lets exactly that call run.
    const flag = /rerun with (.+) or --yolo$/.exec(lines[0]!)![1]!;
    const { execFileSync } = await import('node:child_process');
    const argv = execFileSync('sh', ['-c', `printf '%s\\n' ${flag}`], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(argv).toEqual(['--allow', `write_file:${name}`]);
    t.server.script(reply().toolCall('write_file', { path: name, content: 'x' }), reply().text('Written.'));
    const again = await tea(['-p', 'write', ...argv]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(readFileSync(path.join(t.ctx.work, name), 'utf8')).toBe('x');
  });

  it('a refusal by the mode is reported too, and json output lists the refused calls', async () => {
    t.server.script(
      reply().toolCall('write_file', { path: 'y.txt', content: 'x' }),
      reply().text('Could not.'),
    );
    const r = await tea(['-p', 'write y', '--permission-mode', 'read-only', '--output-format', 'json']);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(
      'tea: refused write_file (y.txt): not allowed here (read-only mode: write tools are not allowed); ' +
        'to let it run, rerun with --permission-mode auto-edit\n',
    );
    expect(JSON.parse(r.stdout).refused).toEqual([
      {
        tool: 'write_file',
        call: 'write_file (y.txt)',
        reason: 'not allowed here (read-only mode: write tools are not allowed)',
        rerun_with: '--permission-mode auto-edit',
      },
    ]);
  });

  it('read-only refuses a write even when --allow names the tool, and says how to run it', async () => {
    t.server.script(
      reply().toolCall('write_file', { path: 'z.txt', content: 'x' }),
      reply().text('Could not.'),
    );
    const r = await tea(['-p', 'write z', '--permission-mode', 'read-only', '--allow', 'write_file']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      /refused write_file \(z\.txt\).*read-only mode refuses write tools, whatever the rules say/,
    );
    expect(r.stderr).toMatch(/; to let it run, rerun with --permission-mode auto-edit\n$/);
    expect(existsSync(path.join(t.ctx.work, 'z.txt'))).toBe(false);
  });

  it('a model failure exits 1 with the reason on stderr', async () => {
    t.server.script(reply().error(400, { message: 'model does not exist' }));
    const r = await tea(['-p', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/400/);
    expect(r.stderr).toMatch(/model does not exist/);
    expect(r.stderr).not.toContain('sk-test-secret-value-1234');
  });

  it('no prompt is a usage error (exit 2)', async () => {
    const r = await tea(['-p'], '');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no prompt/);
  });
});

describe('tea without a model', () => {
  it('exits 3 and says how to configure one', async () => {
    const bare = cliEnv();
    try {
      const r = await runTea(['-p', 'hello'], { env: bare.env, cwd: bare.work });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/OPENAI_API_KEY/);
      expect(r.stderr).toMatch(/config\.yaml/);
    } finally {
      bare.cleanup();
    }
  });

  it('an invalid config exits 2 naming the file and the key', async () => {
    writeFileSync(path.join(t.ctx.home, 'config.yaml'), 'main_model:\n  model: x\n  context_window: big\n');
    const r = await tea(['-p', 'hello']);
    expect(r.code).toBe(2);
    // The file is named (under HOME it is shown as ~/…).
    expect(r.stderr).toContain('~/tea-home/config.yaml');
    expect(r.stderr).toMatch(/main_model\.context_window/);
  });
});

describe('tea --version', () => {
  it('prints the package version', async () => {
    const { version } = JSON.parse(
      (await import('node:fs')).readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'),
    );
    const r = await tea(['--version']);
    expect(r.stdout.trim()).toBe(version);
    expect(r.code).toBe(0);
  });
});

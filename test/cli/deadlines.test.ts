import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { startTea } from './running.js';

// Short configured deadlines against scripted replies that hang or never end; nothing
// here waits longer than a second or two of real time.
const t = useScriptedCli('sk-test');

function config(yaml: string): void {
  writeFileSync(path.join(t.ctx.home, 'config.yaml'), yaml);
}

const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });

describe('model deadlines in tea -p', () => {
  it('a hung model is reported while it is retried, then given up at the call deadline', async () => {
    config(
      `${NO_MEMORY_JOBS}llm: { timeout_s: 0.5, call_timeout_s: 2.5, max_retries: 10, retry_base_ms: 10 }\n`,
    );
    t.server.respond(() => reply().hang());
    const r = await tea(['-p', 'hello?']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /model not answering, retry 1\/10 in \d+ ms \(main_model: no data from the model for 500 ms\)/,
    );
    expect(r.stderr).toMatch(/did not answer within 2\.5 s \(llm\.call_timeout_s\)/);
    // The deadline, not the retry count, ended it: at most five half-second attempts fit.
    expect(t.server.requests.length).toBeLessThanOrEqual(5);
  });

  it('a model that streams forever is stopped at llm.stream_max_s, and not retried', async () => {
    config(`${NO_MEMORY_JOBS}llm: { stream_max_s: 2, max_retries: 3 }\n`);
    t.server.script(reply().text('x'.repeat(20_000)).chunkSize(1).chunkDelay(5));
    const r = await tea(['-p', 'go']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^x+\n$/);
    expect(r.stderr).toMatch(/still streaming after 2 s \(llm\.stream_max_s\)/);
    expect(t.server.requests).toHaveLength(1);
  });

  it('a turn that runs past agent.turn_timeout_s stops with a clear error', async () => {
    config(`${NO_MEMORY_JOBS}agent: { turn_timeout_s: 1 }\n`);
    t.server.script(reply().hang());
    const r = await tea(['-p', 'go']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ran past its deadline of 1 s \(agent\.turn_timeout_s\)/);
  });

  it('a hung cheap model does not hold the exit: background memory extraction is stopped', async () => {
    // Memory extraction on (the default); the cheap model is the main one.
    config('agent: { auto_title: false }\n');
    t.server.script(reply().text('Noted.'), reply().hang());
    const r = await tea(['-p', 'remember that I take my tea without sugar']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Noted.\n');
    // The extraction request did reach the (hung) model, and was given up.
    expect(t.server.requests).toHaveLength(2);
    expect(r.stderr).toMatch(/stopped background work .*memory/);
  });

  it('a failed model starts no memory extraction after its turn: tea -p exits at once', async () => {
    // Memory extraction on (the default), and no retries.
    config('agent: { auto_title: false }\nllm: { max_retries: 0 }\n');
    t.server.script(reply().error(500, { message: 'upstream broke' }), reply().hang());
    const r = await tea(['-p', 'remember that I take my tea without sugar']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/upstream broke/);
    expect(r.stderr).not.toMatch(/stopped background work/);
    expect(t.server.requests).toHaveLength(1);
  });

  it('after Ctrl-C on a hung model, tea -p starts no memory extraction and exits at once', async () => {
    config('agent: { auto_title: false }\n');
    t.server.respond(() => reply().hang());
    const run = startTea(['-p', 'remember that I take my tea without sugar'], {
      env: t.ctx.env,
      cwd: t.ctx.work,
    });
    await t.server.waitForRequests(1);
    run.kill('SIGINT');
    const r = await run.exit;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/cancelled/);
    expect(r.stderr).not.toMatch(/stopped background work/);
    expect(t.server.requests).toHaveLength(1);
  });
});

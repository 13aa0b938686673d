/**
 * A stream cut mid-answer is retried; what the cut attempt showed is dropped. Into a
 * pipe, `tea -p` prints only the clean answer (each model call's text is written once
 * it can no longer be retried); stream-json carries `discard` on the retry event.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli('sk-test');

const PARTIAL = 'The first attempt starts to answer and then the connection drops somewhere in the middle';
const CLEAN = 'The clean answer, whole.';

function scriptCutThenClean(): void {
  writeFileSync(
    path.join(t.ctx.home, 'config.yaml'),
    `${NO_MEMORY_JOBS}llm: { max_retries: 2, retry_base_ms: 10 }\n`,
  );
  t.server.script(reply().text(PARTIAL).chunkSize(8).cutAfter(4), reply().text(CLEAN));
}

describe('a retried stream in tea -p', () => {
  it('prints the clean answer once into a pipe, without the cut attempt’s text', async () => {
    scriptCutThenClean();
    const r = await runTea(['-p', 'answer me'], { env: t.ctx.env, cwd: t.ctx.work });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${CLEAN}\n`);
    expect(r.stderr).toMatch(/model call failed, retry 1\/2/);
  });

  it('marks the retry as discarding in stream-json, so a consumer can drop what it showed', async () => {
    scriptCutThenClean();
    const r = await runTea(['-p', 'answer me', '--output-format', 'stream-json'], {
      env: t.ctx.env,
      cwd: t.ctx.work,
    });
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; discard?: boolean; text?: string });
    const retry = events.find((e) => e.type === 'retry');
    expect(retry?.discard).toBe(true);
    const after = events.slice(events.indexOf(retry!) + 1);
    const text = after
      .filter((e) => e.type === 'text_delta')
      .map((e) => e.text)
      .join('');
    expect(text).toBe(CLEAN);
  });
});

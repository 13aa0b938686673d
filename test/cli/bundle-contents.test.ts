/**
 * What the built CLI bundle leaves out. zod's JSON Schema import (`fromJSONSchema`, for
 * role output schemas) pulls in all of zod's classic API and its locales, about 350 KB:
 * the bundle loads it from node_modules (`zod/v4`, external in scripts/build.mjs) only
 * when a role with an output schema is used. A bundle that holds it starts slower (its
 * code cache is a quarter bigger).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isChild, isFirstCall } from '../multi/helpers.js';
import { NO_MEMORY_JOBS, runTea, TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const BUNDLE = path.resolve(path.dirname(TEA_BIN), '..', 'dist', 'tea.cjs');

describe('the CLI bundle', () => {
  let text = '';
  // test/global-setup.ts has built dist/.
  beforeAll(() => {
    text = readFileSync(BUNDLE, 'utf8');
  });

  it("holds neither zod's JSON Schema import nor its locales", () => {
    expect(text).not.toContain('Conditional schemas (if/then/else) are not supported');
    expect(text).not.toContain('Ungültige Eingabe');
    // It loads zod/v4 from node_modules instead.
    expect(text).toMatch(/require\("zod\/v4"\)/);
  });
});

describe('a role with an output schema, through the built tea', () => {
  const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

  it('loads zod/v4 from node_modules and checks the answer (with the repair round)', async () => {
    const agents = path.join(t.ctx.work, '.tea', 'agents');
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      path.join(agents, 'counter.md'),
      '---\nname: counter\ndescription: Counts things.\noutput_schema:\n  type: object\n  properties: { count: { type: integer } }\n  required: [count]\n---\nCount, answer JSON.\n',
    );
    let child = 0;
    t.server.respond((body) => {
      if (isChild(body)) return reply().text(child++ === 0 ? '{"count":"three"}' : '{"count":3}');
      if (isFirstCall(body))
        return reply().toolCall('task', {
          description: 'count',
          prompt: 'Count the lines.',
          role: 'counter',
        });
      return reply().text('There are 3.');
    });
    const r = await runTea(['-p', 'count with the counter role'], { env: t.ctx.env, cwd: t.ctx.work });
    t.server.respond(undefined);
    expect(r.stderr).not.toContain('Error');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('There are 3.');
    const toolResult = JSON.stringify(t.server.requests.at(-1)!.body.messages);
    expect(toolResult).toContain('Output (valid JSON)');
    expect(child).toBe(2);
  });
});

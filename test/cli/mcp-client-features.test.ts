/**
 * What Tea's MCP client offers a real server (server-everything from npm) during a
 * `tea -p` turn: the workspace as its root, sampling answered by the session's model
 * (with approval and under the budget), elicitation declined where nobody can answer,
 * and a tool list that follows the server's list_changed notifications.
 */

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { EVERYTHING_JS } from '../tools/mcp/peers.js';

const SERVER = `mcp_servers:\n  everything: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING_JS)}, stdio] }\n`;
const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS + SERVER });

const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work, input: '' });

// The server's tool list in the cache (`tea mcp tools` connects once), so the model's
// first call finds its tools registered.
beforeEach(async () => {
  const r = await tea(['mcp', 'tools', 'everything']);
  expect(r.code, r.stderr).toBe(0);
});

/** The text of the tool results the model got back in request `i`. */
function toolResults(i: number): string[] {
  return wireMessages(t.server.requests[i]!.body)
    .filter((m) => m.role === 'tool')
    .map((m) => wireText(m));
}

describe('roots', () => {
  it('the server lists the workspace as a file:// root', async () => {
    t.server.script(reply().toolCall('mcp__everything__get-roots-list', {}), reply().text('done'));
    const r = await tea(['-p', 'what are my roots?']);
    expect(r.code, r.stderr).toBe(0);
    const [result] = toolResults(1);
    expect(result).toContain('Current MCP Roots (1 total)');
    expect(result).toContain(`URI: ${pathToFileURL(t.ctx.work).href}`);
  });
});

describe('sampling', () => {
  it('is answered by the session model once approved, capped by mcp_sampling.max_tokens', async () => {
    t.server.script(
      reply().toolCall('mcp__everything__trigger-sampling-request', { prompt: 'say hi', maxTokens: 5000 }),
      reply().text('Hi from the session model.'),
      reply().text('The server got its answer.'),
    );
    const r = await tea([
      '-p',
      'sample please',
      '--allow',
      'mcp__everything__trigger-sampling-request',
      '--allow',
      'mcp_sampling:everything',
    ]);
    expect(r.code, r.stderr).toBe(0);
    // The sampling call: the server's system prompt and message, no tools, the budget's cap.
    const sampling = t.server.requests[1]!.body;
    expect(sampling.tools ?? []).toEqual([]);
    expect(sampling.max_tokens ?? sampling.max_completion_tokens).toBe(1000);
    const sent = wireMessages(sampling);
    expect(sent.map((m) => m.role)).toEqual(['system', 'user']);
    expect(wireText(sent[0]!)).toBe('You are a helpful test server.');
    expect(wireText(sent[1]!)).toContain('say hi');
    const [result] = toolResults(2);
    expect(result).toContain('LLM sampling result');
    expect(result).toContain('Hi from the session model.');
    expect(result).toContain('"model": "scripted-model"');
  });

  it('nobody to approve it: the server gets a clear refusal and sees no model answer', async () => {
    t.server.script(
      reply().toolCall('mcp__everything__trigger-sampling-request', { prompt: 'say hi' }),
      reply().text('It was refused.'),
    );
    const r = await tea(['-p', 'sample please', '--allow', 'mcp__everything__trigger-sampling-request']);
    expect(r.code, r.stderr).toBe(0);
    // No model call for sampling: the second request is the turn going on after the tool.
    expect(t.server.requests).toHaveLength(2);
    const [result] = toolResults(1);
    expect(result).toContain('sampling request declined');
    expect(result).toContain('mcp_sampling (everything) needs the user');
  });

  it('a used-up session budget is refused, naming the setting', async () => {
    t.server.script(
      reply().toolCall('mcp__everything__trigger-sampling-request', { prompt: 'say hi' }),
      reply().text('It was refused.'),
    );
    writeFileSync(
      path.join(t.ctx.home, 'config.yaml'),
      `${NO_MEMORY_JOBS}${SERVER}mcp_sampling:\n  session_tokens: 0\n`,
    );
    const r = await tea(['-p', 'sample please', '--yolo']);
    expect(r.code, r.stderr).toBe(0);
    expect(t.server.requests).toHaveLength(2);
    expect(toolResults(1)[0]).toContain('sampling is off in Tea (mcp_sampling.session_tokens: 0)');
  });
});

describe('elicitation', () => {
  it('tea -p cannot ask the user: the request is declined and the user is told', async () => {
    t.server.script(reply().toolCall('mcp__everything__trigger-elicitation-request', {}), reply().text('ok'));
    const r = await tea(['-p', 'ask me', '--allow', 'mcp__everything__trigger-elicitation-request']);
    expect(r.code, r.stderr).toBe(0);
    const [result] = toolResults(1);
    expect(result).toMatch(/declined/i);
    expect(r.stderr).toContain('MCP server "everything" asked for input');
  });
});

/** `tea config` shows every section of the config, and config mistakes and a missing model are explained. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileSchema } from '../../src/config/schema.js';
import { cliEnv, runTea, useScriptedCli } from '../support/cli.js';

const t = useScriptedCli('sk-test');
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });
const config = (yaml: string) => writeFileSync(path.join(t.ctx.home, 'config.yaml'), yaml);

const TOKEN = 'tok-0123456789abcdefghij';
const KEY = 'notes-key-0123456789abcdefghij';

describe('tea config', () => {
  it('shows every section the config file may have, memory and server included, secrets masked', async () => {
    config(
      'memory:\n  extract: false\n' +
        'mcp_servers:\n  notes:\n    command: notes-mcp\n' +
        `    args: [--token, ${TOKEN}, --verbose]\n` +
        `    env: { NOTES_API_KEY: ${KEY}, NOTES_MODE: fast }\n`,
    );
    const json = await tea(['config', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const shown = JSON.parse(json.stdout) as Record<string, unknown>;
    for (const section of Object.keys(fileSchema.shape)) expect(Object.keys(shown)).toContain(section);
    expect(shown.memory).toEqual({ extract: false, tune: true, judge: true });
    expect(shown.server).toEqual({ allowed_hosts: [] });
    const notes = (shown.mcp_servers as Record<string, { args: string[]; env: Record<string, string> }>)
      .notes!;
    expect(notes.env.NOTES_MODE).toBe('fast');
    expect(notes.args[0]).toBe('--token');
    expect(notes.args[2]).toBe('--verbose');
    expect(json.stdout).not.toContain(TOKEN);
    expect(json.stdout).not.toContain(KEY);

    const yaml = await tea(['config']);
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).toMatch(/^memory:\n {2}extract: false\n {2}tune: true\n {2}judge: true\n/m);
    expect(yaml.stdout).toMatch(/^server:\n {2}allowed_hosts: \[\]\n/m);
    expect(yaml.stdout).toMatch(/^mcp_servers:\n {2}notes:\n/m);
    expect(yaml.stdout).not.toContain(TOKEN);
    expect(yaml.stdout).not.toContain(KEY);
  });

  it('a repeated key is named, with both its lines', async () => {
    config('agent:\n  max_iterations: 5\nmemory:\n  extract: false\nagent:\n  auto_title: true\n');
    const r = await tea(['config']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'config.yaml: YAML syntax error at line 5, column 1: the key "agent" appears twice (lines 1 and 5). ' +
        'Fix: keep only one of the repeated keys: put the settings of both "agent" sections under one.',
    );
    config('agent:\n  max_iterations: 5\n  max_iterations: 6\n');
    const nested = await tea(['config', 'check']);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toContain('the key "agent.max_iterations" appears twice (lines 2 and 3)');
  });
});

describe('with no model configured', () => {
  it('says what works without one, the rules among it, and which exit code this is', async () => {
    const bare = cliEnv();
    try {
      const r = await runTea(['-p', 'hello'], { env: bare.env, cwd: bare.work });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/^tea: No model is configured, and Tea needs one to work on a task\./);
      expect(r.stderr).toContain('tea sessions, tea memory, tea tools, tea db');
      expect(r.stderr).toContain('exit code 3');
      // The rules work without a model: the message lists them (agent/rules/).
      expect(r.stderr).toMatch(/These commands work without a model[^\n]*:\n {2}!<command> /);
      expect(r.stderr).toMatch(/\/read <path>/);
    } finally {
      bare.cleanup();
    }
  });
});

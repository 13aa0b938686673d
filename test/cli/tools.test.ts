import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv, runTea } from '../support/cli.js';

let ctx: CliEnv;
beforeEach(() => {
  ctx = cliEnv();
});
afterEach(() => ctx.cleanup());

const tea = (args: string[]) => runTea(args, { env: ctx.env, cwd: ctx.work });

describe('tea tools', () => {
  it('list prints every tool with category, approval class and a description', async () => {
    const r = await tea(['tools', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^files\n/m);
    expect(r.stdout).toMatch(/^ {2}\* read_file +none +\S/m);
    expect(r.stdout).toMatch(/^ {4}git_commit +write +\S/m);
    const count = Number(/^(\d+) tools;/m.exec(r.stdout)?.[1]);
    expect(count).toBeGreaterThanOrEqual(50);
  });

  it('list --json is machine-readable and complete', async () => {
    const r = await tea(['tools', 'list', '--json']);
    const tools = JSON.parse(r.stdout) as Array<{
      name: string;
      category: string;
      approval: string;
      core: boolean;
    }>;
    expect(tools.length).toBeGreaterThanOrEqual(50);
    expect(tools.find((t) => t.name === 'bash')).toMatchObject({
      category: 'exec',
      approval: 'exec',
      core: true,
    });
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  it('lists and shows the memory tool the agent offers', async () => {
    const list = await tea(['tools', 'list']);
    expect(list.stdout).toMatch(/^memory\n {4}memory +none +Long-term memory/m);
    const json = JSON.parse((await tea(['tools', 'list', '--json'])).stdout) as Array<{ name: string }>;
    expect(json.map((t) => t.name)).toContain('memory');
    expect((await tea(['tools', 'list', '--category', 'memory'])).stdout).toMatch(/^1 tools;/m);
    const shown = await tea(['tools', 'show', 'memory', '--json']);
    expect(shown.code).toBe(0);
    const tool = JSON.parse(shown.stdout);
    expect(tool).toMatchObject({ name: 'memory', category: 'memory', approval: 'none' });
    expect(tool.parameters.properties.action.enum).toEqual(
      expect.arrayContaining(['add', 'search', 'history']),
    );
  });

  it('show prints the JSON schema the model sees; an unknown name suggests real ones', async () => {
    const r = await tea(['tools', 'show', 'edit_file']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^edit_file \(files\)/);
    expect(r.stdout).toContain('"type": "object"');
    expect(r.stdout).toContain('"path"');
    const json = JSON.parse((await tea(['tools', 'show', 'bash', '--json'])).stdout);
    expect(json.parameters.type).toBe('object');
    const bad = await tea(['tools', 'show', 'edit_fil']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown tool "edit_fil"; did you mean edit_file\?/);
  });
});

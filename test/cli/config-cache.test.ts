/**
 * The built CLI remembers a config file it validated (read-cache.ts): the next
 * command with the same bytes skips the YAML parser and the schema. Any edit is
 * validated afresh, a damaged entry is ignored, and the copy is owner-only.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTea, useScriptedCli } from '../support/cli.js';

const t = useScriptedCli('sk-live-cache-test-1234');
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });
const dir = () => path.join(t.ctx.home, 'cache', 'config');
const entries = () => readdirSync(dir()).filter((f) => f.endsWith('.json'));

describe('the validated-config cache', () => {
  it('is used for the same bytes, dropped on any edit, and ignored when damaged', async () => {
    const file = path.join(t.ctx.home, 'config.yaml');
    writeFileSync(file, 'agent:\n  max_iterations: 7\n');
    expect((await tea(['config'])).stdout).toMatch(/max_iterations: 7\n/);
    const [entry] = entries();
    expect(entries()).toHaveLength(1);
    const cached = path.join(dir(), entry as string);
    expect(statSync(cached).mode & 0o777).toBe(0o600);
    expect(statSync(dir()).mode & 0o777).toBe(0o700);

    // Proof that the entry is what the next command reads: change it behind tea's back.
    const held = JSON.parse(readFileSync(cached, 'utf8'));
    expect(held.text).toBe(readFileSync(file, 'latin1'));
    held.raw.agent.max_iterations = 9;
    writeFileSync(cached, JSON.stringify(held));
    expect((await tea(['config'])).stdout).toMatch(/max_iterations: 9\n/);

    // Any edit to the file is validated afresh, and replaces the entry.
    writeFileSync(file, `${readFileSync(file, 'utf8')}# a comment\n`);
    expect((await tea(['config'])).stdout).toMatch(/max_iterations: 7\n/);
    expect(entries()).toHaveLength(1);
    expect(entries()[0]).not.toBe(entry);

    // An invalid edit is reported as ever.
    writeFileSync(file, readFileSync(file, 'utf8').replace('max_iterations', 'max_iteratoins'));
    const bad = await tea(['config', 'check']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/max_iteratoins/);

    // A damaged entry is ignored and rewritten.
    writeFileSync(file, readFileSync(file, 'utf8').replace('max_iteratoins', 'max_iterations'));
    expect((await tea(['config'])).code).toBe(0);
    writeFileSync(path.join(dir(), entries()[0] as string), '{"agent": {"max_iter');
    const again = await tea(['config']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/max_iterations: 7\n/);
    expect(
      JSON.parse(readFileSync(path.join(dir(), entries()[0] as string), 'utf8')).raw.agent.max_iterations,
    ).toBe(7);
  });

  it('is trusted only for the exact text it holds, whatever its name says', async () => {
    const file = path.join(t.ctx.home, 'config.yaml');
    writeFileSync(file, 'agent:\n  max_iterations: 7\n');
    expect((await tea(['config'])).stdout).toMatch(/max_iterations: 7\n/);
    const cached = path.join(dir(), entries()[0] as string);
    // An entry under the right name whose text is not the file's (as a hash collision would
    // make) is not used: the file is validated afresh.
    const held = JSON.parse(readFileSync(cached, 'utf8'));
    held.text = held.text.replace('7', '8');
    held.raw.agent.max_iterations = 8;
    writeFileSync(cached, JSON.stringify(held));
    expect((await tea(['config'])).stdout).toMatch(/max_iterations: 7\n/);
  });
});

/**
 * A message longer than the model's window is cut to its start and end; in text mode
 * (`tea -p`, the interactive `tea`) one `tea:` line on stderr says how much the model
 * sees, with the same figures as the `compaction` event's `cut`.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

// A small window, so that a few hundred thousand characters are far over it.
const t = useScriptedCli('sk-test', {
  config: `${NO_MEMORY_JOBS}agent: { auto_title: false }\nmodels:\n  scripted-model: { context_window: 8192, max_output: 1024 }\n`,
});
const tea = (args: string[], input?: string) =>
  runTea(args, { env: t.ctx.env, cwd: t.ctx.work, ...(input === undefined ? {} : { input }) });

const LINE = 'some log line 部署失败\n';
const CUT_LINE =
  /^tea: your message \(([\d.]+K) characters, ~([\d.,K]+) tokens\) is longer than the model's window allows \(([\d.,K]+) tokens\); the model sees only its first ([\d.,K]+) and last ([\d.,K]+) characters \(the whole text is kept in the session\)$/m;

interface Compaction {
  type: 'compaction';
  steps: string[];
  limit: number;
  cut?: { role: string; chars: number; kept: number; tokens: number };
}

describe('a message longer than the window', () => {
  it('tea -p says on stderr what the model sees of it, as the compaction event has it', async () => {
    const piped = LINE.repeat(12_000); // 228,000 characters
    t.server.script(reply().text('The deploy failed.'));
    const r = await tea(['-p', 'what failed?'], piped);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('The deploy failed.\n');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const m = CUT_LINE.exec(lines[0]!);
    expect(m, r.stderr).not.toBeNull();
    expect(m![1]).toBe('228K');

    // The same figures as the stream-json event.
    t.server.script(reply().text('The deploy failed.'));
    const json = await tea(['-p', 'what failed?', '--output-format', 'stream-json'], piped);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    const cut = (events.find((e) => e.type === 'compaction') as Compaction).cut!;
    expect(cut).toMatchObject({ role: 'user', chars: 'what failed?\n\n'.length + piped.trimEnd().length });
    expect(cut.kept).toBeGreaterThan(1000);
    expect(cut.kept).toBeLessThan(cut.chars);
    // The model did get the start and the end.
    const sent = wireText(wireMessages(t.server.requests[0]!.body).findLast((x) => x.role === 'user')!);
    expect(sent.startsWith('what failed?\n\nsome log line')).toBe(true);
    expect(sent).toMatch(/… \[cut \d+ chars\]\n/);
    expect(sent.endsWith('some log line 部署失败')).toBe(true);
  });

  it('a message that fits says nothing', async () => {
    t.server.script(reply().text('Fine.'));
    const r = await tea(['-p', 'what failed?'], LINE.repeat(10));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('the interactive tea says it too', async () => {
    // A long line typed on a real terminal (util-linux `script`): pasted in pieces.
    t.server.script(reply().text('Seen the start and the end.'));
    const long = `${'word '.repeat(8_000)}end`;
    const screen = await new Promise<string>((resolve, reject) => {
      const child = spawn('script', ['-qfec', `${process.execPath} ${TEA_BIN}`, '/dev/null'], {
        env: t.ctx.env,
        cwd: t.ctx.work,
      });
      let out = '';
      let typed = 0;
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (typed === 0 && out.includes('tea> ')) {
          typed = 1;
          child.stdin.write(`${long}\n`);
        } else if (typed === 1 && out.includes('Seen the start and the end.')) {
          typed = 2;
          child.stdin.write('/exit\n');
        }
      });
      child.on('error', reject);
      child.on('exit', () => resolve(out));
    });
    expect(screen.replace(/\r/g, '')).toMatch(
      /tea: your message \(40\.0K characters, ~[\d.,K]+ tokens\) is longer than the model's window allows/,
    );
  });
});

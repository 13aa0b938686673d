/**
 * `tea <words>` without -p: a misspelt command is a usage error naming the closest,
 * words with nothing piped are not a prompt either (no model call, no session), and
 * `tea help [command…]` shows help. Words with piped text are its instruction.
 */
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const tea = (args: string[], input?: string) =>
  runTea(args, { env: t.ctx.env, cwd: t.ctx.work, ...(input === undefined ? {} : { input }) });

async function sessionCount(): Promise<number> {
  const r = await tea(['sessions', 'list', '--json']);
  return (JSON.parse(r.stdout) as { total: number }).total;
}

describe('tea <words> without -p', () => {
  it('a misspelt command is refused with the closest name, exit 2, and nothing runs', async () => {
    t.server.respond(() => reply().text('Answer.'));
    const cases: Array<[string[], string]> = [
      [['sesions', 'list'], 'tea: unknown command "sesions"; did you mean "sessions"? (see tea --help)\n'],
      [['memroy', 'add', 'x'], 'tea: unknown command "memroy"; did you mean "memory"? (see tea --help)\n'],
      [
        ['sesions', 'rm', 'abc'],
        'tea: unknown command "sesions"; did you mean "sessions"? (see tea --help)\n',
      ],
      [['tols'], 'tea: unknown command "tols"; did you mean "tools"? (see tea --help)\n'],
      [['Sessions'], 'tea: unknown command "Sessions"; did you mean "sessions"? (see tea --help)\n'],
    ];
    for (const [args, line] of cases) {
      const r = await tea(args);
      expect({ args, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        args,
        code: 2,
        stdout: '',
        stderr: line,
      });
    }
    // Even with text piped in: a first word this close to a command is a typo.
    const piped = await tea(['sesions', 'list'], 'some text');
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('did you mean "sessions"?');
    expect(t.server.requests).toHaveLength(0);
    expect(await sessionCount()).toBe(0);
  });

  it('below a command too: tea sessions lst names the subcommand it is closest to', async () => {
    const r = await tea(['sessions', 'lst']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('tea: unknown command "lst"; did you mean "list"? (see tea sessions --help)\n');
    const add = await tea(['memory', 'ad', 'x']);
    expect(add.stderr).toBe('tea: unknown command "ad"; did you mean "add"? (see tea memory --help)\n');
  });

  it('other words with nothing piped are not run: the error says to put -p before them', async () => {
    const r = await tea(['fix', 'the', 'bug']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `tea: unknown command "fix"; to run "fix the bug" as a prompt, put -p before it: tea -p 'fix the bug' (see tea --help)\n`,
    );
    const one = await tea(['hello']);
    expect(one.stderr).toBe(
      `tea: unknown command "hello"; to run it as a prompt, put -p before it: tea -p 'hello' (see tea --help)\n`,
    );
    expect(t.server.requests).toHaveLength(0);
    expect(await sessionCount()).toBe(0);
  });

  it('words with text piped in are its instruction, as before', async () => {
    t.server.script(reply().text('Looks fine.'));
    const r = await tea(['review', 'this'], 'diff --git a/x b/x\n+new line\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Looks fine.\n');
    const user = wireMessages(t.server.requests[0]!.body).findLast((m) => m.role === 'user')!;
    expect(wireText(user)).toBe('review this\n\ndiff --git a/x b/x\n+new line');
  });

  it('with -p, the same words are a prompt', async () => {
    t.server.script(reply().text('Listed.'));
    const r = await tea(['-p', 'sesions', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Listed.\n');
  });
});

describe('tea help', () => {
  it('shows the help of tea, or of the command named, like --help', async () => {
    const help = await tea(['help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await tea(['--help'])).stdout);
    expect(help.stdout).toContain('Usage: tea [options] [command] [prompt...]');
    expect(help.stdout).toMatch(/Without -p, words run as a prompt only for text piped on stdin/);

    const list = await tea(['help', 'sessions', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toBe((await tea(['sessions', 'list', '--help'])).stdout);

    const typo = await tea(['help', 'sesions']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe('tea: unknown command "sesions"; did you mean "sessions"? (see tea --help)\n');
    expect(t.server.requests).toHaveLength(0);
  });
});

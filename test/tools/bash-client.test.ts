/**
 * bash with a client shell (ctx.shell, an editor's terminal over ACP): the program it
 * hands over, the environment changes, the note for an output the client cut, and a
 * cancel reaching the client. The real ACP path is test/acp/terminal.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { execTools } from '../../src/tools/builtin/exec.js';
import { clientEnv } from '../../src/tools/builtin/exec-client.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool } from '../../src/tools/run.js';
import type { ClientCommand, ClientCommandResult, ClientShell } from '../../src/tools/types.js';
import { call, makeCtx, tempDir } from './helpers.js';

/** A client that answers each command with `answer` (or, when it is undefined, waits for the cancel). */
function fakeShell(answer?: Partial<ClientCommandResult>): ClientShell & { seen: ClientCommand[] } {
  const seen: ClientCommand[] = [];
  return {
    seen,
    run: (req) => {
      seen.push(req);
      if (answer)
        return Promise.resolve({ output: '', truncated: false, exitCode: 0, signal: null, ...answer });
      return new Promise((resolve) =>
        req.signal.addEventListener('abort', () =>
          resolve({ output: 'partial\n', truncated: false, exitCode: null, signal: 'SIGKILL' }),
        ),
      );
    },
  };
}

function registry(): ToolRegistry {
  const r = new ToolRegistry();
  r.registerAll(execTools({ bashMaxOutputChars: 5000 }));
  return r;
}

describe('bash through a client shell', () => {
  it('hands the client bash -c with the workspace and call, and reports its exit and output', async () => {
    const cwd = await tempDir();
    const shell = fakeShell({ output: 'hello\n', exitCode: 2 });
    const r = await runTool(
      registry(),
      call('bash', { command: 'echo hello; exit 2' }),
      makeCtx(cwd, { shell, sessionId: 'sess', callId: 'call-9' }),
    );
    expect(r.output).toBe('exit code: 2\nhello');
    const req = shell.seen[0]!;
    expect(req).toMatchObject({
      command: 'bash',
      args: ['-c', 'echo hello; exit 2'],
      cwd,
      outputByteLimit: 5000,
    });
    expect(req).toMatchObject({ sessionId: 'sess', callId: 'call-9' });
    expect(req.env.PAGER).toBe('cat');
    // The deadline watches the output from shortly before the base timeout (120 s by default).
    expect(req.watch).toMatchObject({ afterMs: 118_000, everyMs: 1000 });
  });

  it('says when the client kept only the end of the output', async () => {
    const cwd = await tempDir();
    const shell = fakeShell({ output: 'tail\n', truncated: true });
    const r = await runTool(
      registry(),
      call('bash', { command: 'yes | head -c 99999' }),
      makeCtx(cwd, { shell }),
    );
    expect(r.output).toBe('exit code: 0\n(the terminal kept only the last 5000 bytes of the output)\ntail');
  });

  it('a cancel aborts the client command, and the result says it was cancelled', async () => {
    const cwd = await tempDir();
    const shell = fakeShell();
    const ctrl = new AbortController();
    const run = runTool(
      registry(),
      call('bash', { command: 'sleep 60' }),
      makeCtx(cwd, { shell, signal: ctrl.signal }),
    );
    while (shell.seen.length === 0) await new Promise((r) => setImmediate(r));
    expect(shell.seen[0]!.signal.aborted).toBe(false);
    ctrl.abort();
    const r = await run;
    expect(shell.seen[0]!.signal.aborted).toBe(true);
    expect(r.output).toContain('killed: cancelled');
  });

  it('clientEnv sets what Tea changes and blanks what the scrub dropped', () => {
    const base = { PATH: '/bin', GITHUB_TOKEN: 'ghp_x', SAME: 'v' };
    const env = clientEnv({ PATH: '/bin', SAME: 'v', EXTRA: '1' }, base);
    expect(env).toEqual({
      GITHUB_TOKEN: '',
      EXTRA: '1',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      GIT_TERMINAL_PROMPT: '0',
    });
  });
});

/** A `tea` child process a test watches while it runs: wait for its output, not for time. */
import { type CliResult, spawnTea } from '../support/cli.js';

export interface Exit extends CliResult {
  signal: NodeJS.Signals | null;
}

export interface Running {
  pid: number;
  readonly stdout: string;
  readonly stderr: string;
  exit: Promise<Exit>;
  /** Resolves with stderr once it matches `re`; rejects if the process exits first. */
  stderrMatches(re: RegExp): Promise<string>;
  /** Resolves with the first stdout line that satisfies `test`; rejects if the process exits first. */
  stdoutLine(test: (line: string) => boolean): Promise<string>;
  kill(signal: NodeJS.Signals): void;
}

export function startTea(args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string }): Running {
  const child = spawnTea(args, opts);
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const changed = (): void => {
    for (const l of [...listeners]) l();
  };
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
    changed();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
    changed();
  });
  const exit = new Promise<Exit>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({ code, signal, stdout, stderr });
      changed();
    });
  });
  let exited = false;
  void exit.then(() => {
    exited = true;
    changed();
  });

  const until = <T>(check: () => T | undefined, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const look = (): void => {
        const found = check();
        if (found !== undefined) {
          listeners.delete(look);
          resolve(found);
        } else if (exited) {
          listeners.delete(look);
          reject(new Error(`tea exited before ${what}; stdout: ${stdout}\nstderr: ${stderr}`));
        }
      };
      listeners.add(look);
      look();
    });

  return {
    pid: child.pid ?? -1,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exit,
    stderrMatches: (re) => until(() => (re.test(stderr) ? stderr : undefined), `stderr matched ${re}`),
    stdoutLine: (test) =>
      until(
        () =>
          stdout
            .split('\n')
            .slice(0, -1)
            .find((line) => test(line)),
        'the expected stdout line',
      ),
    kill: (signal) => {
      child.kill(signal);
    },
  };
}

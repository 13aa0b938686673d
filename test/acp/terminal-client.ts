/**
 * The terminal side of a test editor: `terminal/*` requests really run the command
 * (a child process per terminal, as an editor does), and every request is recorded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as acp from '@agentclientprotocol/sdk';

export interface TestTerminal {
  id: string;
  request: acp.CreateTerminalRequest;
  child: ChildProcess;
  output: string;
  truncated: boolean;
  exit?: acp.TerminalExitStatus;
  exited: Promise<acp.TerminalExitStatus>;
  released: boolean;
}

export class TestTerminals {
  readonly all: TestTerminal[] = [];
  /** Every terminal request in order: `create`, `output`, `wait_for_exit`, `kill`, `release`. */
  readonly calls: Array<{ method: string; terminalId?: string }> = [];
  private next = 1;
  /** A stuck client: kill and release leave the command running (and wait_for_exit waiting). */
  stuck = false;

  /** The client's own environment, the base of every command's (the agent's `env` goes on top). */
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  create(req: acp.CreateTerminalRequest): acp.CreateTerminalResponse {
    const id = `term-${this.next++}`;
    this.calls.push({ method: 'create', terminalId: id });
    const env = { ...this.env };
    for (const v of req.env ?? []) env[v.name] = v.value;
    const child = spawn(req.command, req.args ?? [], {
      cwd: req.cwd ?? undefined,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const t: TestTerminal = {
      id,
      request: req,
      child,
      output: '',
      truncated: false,
      released: false,
      exited: new Promise((resolve) => {
        child.on('error', () => resolve({ exitCode: 127, signal: null }));
        child.on('close', (code, signal) => resolve({ exitCode: code, signal }));
      }),
    };
    void t.exited.then((s) => {
      t.exit = s;
    });
    const limit = req.outputByteLimit ?? undefined;
    const take = (d: Buffer): void => {
      t.output += d.toString();
      if (limit !== undefined && Buffer.byteLength(t.output) > limit) {
        t.output = Buffer.from(t.output).subarray(-limit).toString();
        t.truncated = true;
      }
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    this.all.push(t);
    return { terminalId: id };
  }

  get(id: string): TestTerminal {
    const t = this.all.find((x) => x.id === id);
    if (!t || t.released) throw acp.RequestError.invalidParams({ terminalId: id }, `no terminal ${id}`);
    return t;
  }

  output(req: acp.TerminalOutputRequest): acp.TerminalOutputResponse {
    this.calls.push({ method: 'output', terminalId: req.terminalId });
    const t = this.get(req.terminalId);
    return { output: t.output, truncated: t.truncated, ...(t.exit ? { exitStatus: t.exit } : {}) };
  }

  async waitForExit(req: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    this.calls.push({ method: 'wait_for_exit', terminalId: req.terminalId });
    return this.get(req.terminalId).exited;
  }

  kill(req: acp.KillTerminalRequest): acp.KillTerminalResponse {
    this.calls.push({ method: 'kill', terminalId: req.terminalId });
    if (!this.stuck) killGroup(this.get(req.terminalId));
    return {};
  }

  release(req: acp.ReleaseTerminalRequest): acp.ReleaseTerminalResponse {
    this.calls.push({ method: 'release', terminalId: req.terminalId });
    const t = this.get(req.terminalId);
    if (!this.stuck) killGroup(t);
    t.released = true;
    return {};
  }

  /** Kills whatever still runs (test cleanup). */
  dispose(): void {
    for (const t of this.all) killGroup(t, true);
  }
}

function killGroup(t: TestTerminal, always = false): void {
  if ((t.exit && !always) || t.child.pid === undefined) return;
  try {
    process.kill(-t.child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

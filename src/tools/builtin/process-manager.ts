/**
 * Background processes the agent starts and checks on later (dev servers, watchers,
 * long builds). Each runs in its own process group with a bounded head+tail buffer
 * of output not yet read. One manager per tool set; every live manager's groups are
 * killed when this process exits.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { HeadTailBuffer } from '../truncate.js';
import { ToolError } from '../types.js';
import { NON_INTERACTIVE_ENV, signalGroup } from './process.js';

export interface ProcessManagerOptions {
  /** Unread output kept per process, head+tail (default 32 000 chars). */
  maxBufferChars?: number;
  /** Processes that may run at once (default 16). */
  maxRunning?: number;
  /** Finished processes remembered for bg_list/bg_output (default 32). */
  maxFinished?: number;
  /** Time between SIGTERM and SIGKILL when killing (default 2 000 ms). */
  killGraceMs?: number;
}

export interface BackgroundInfo {
  id: string;
  name: string | undefined;
  pid: number | undefined;
  command: string;
  running: boolean;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  startedAt: number;
  endedAt: number | undefined;
  /** The session whose tool call started it, when known. */
  sessionId: string | undefined;
}

/** Told when a process starts, and once when it ends (exits, is killed, or fails to start). */
export interface ProcessEvent {
  type: 'started' | 'ended';
  info: BackgroundInfo;
}

export type ProcessListener = (event: ProcessEvent) => void;

export interface StartRequest {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  name?: string;
  sessionId?: string;
  /** What to spawn instead of `bash -c <command>` (the same command wrapped in a sandbox). */
  launch?: { file: string; args: string[] };
}

interface Entry {
  info: BackgroundInfo;
  child: ChildProcessWithoutNullStreams;
  unread: HeadTailBuffer;
  /** Called when output arrives, the process ends or its output pipes close. */
  waiters: Set<() => void>;
  closed: Promise<void>;
  /** The output pipes have closed: no more output can arrive. */
  drained: boolean;
}

/** After the leader exits, how long its output pipes may stay open before it counts as ended. */
const PIPE_DRAIN_MS = 250;

const live = new Set<ProcessManager>();
let exitHookInstalled = false;

/** Kills the process groups of every live manager (for faces shutting down). */
export function killAllProcesses(): void {
  for (const manager of live) manager.killAll();
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killAllProcesses);
}

export class ProcessManager {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<ProcessListener>();
  private nextId = 1;
  private readonly maxBufferChars: number;
  private readonly maxRunning: number;
  private readonly maxFinished: number;
  readonly killGraceMs: number;

  constructor(opts: ProcessManagerOptions = {}) {
    this.maxBufferChars = opts.maxBufferChars ?? 32_000;
    this.maxRunning = opts.maxRunning ?? 16;
    this.maxFinished = opts.maxFinished ?? 32;
    this.killGraceMs = opts.killGraceMs ?? 2000;
  }

  start(request: StartRequest): BackgroundInfo {
    const running = this.list().filter((p) => p.running).length;
    if (running >= this.maxRunning) {
      throw new ToolError(
        `${running} background processes are already running (the limit is ${this.maxRunning})`,
        'stop one you no longer need with bg_kill (bg_list shows them)',
      );
    }
    const child = spawn(request.launch?.file ?? 'bash', request.launch?.args ?? ['-c', request.command], {
      cwd: request.cwd,
      env: { ...request.env, ...NON_INTERACTIVE_ENV },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const id = `bg${this.nextId++}`;
    const info: BackgroundInfo = {
      id,
      name: request.name,
      pid: child.pid,
      command: request.command,
      running: true,
      exitCode: null,
      exitSignal: null,
      startedAt: Date.now(),
      endedAt: undefined,
      sessionId: request.sessionId,
    };
    let markClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      markClosed = resolve;
    });
    const entry: Entry = {
      info,
      child,
      unread: new HeadTailBuffer(Math.floor(this.maxBufferChars / 2)),
      waiters: new Set(),
      closed,
      drained: false,
    };
    const wake = (): void => {
      for (const waiter of entry.waiters) waiter();
      entry.waiters.clear();
    };
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        entry.unread.push(chunk);
        wake();
      });
    }
    // Writing to a process that has exited fails with EPIPE; bg_input reports it.
    child.stdin.on('error', () => undefined);
    const ended = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (!info.running) return;
      info.running = false;
      info.exitCode = code;
      info.exitSignal = signal;
      info.endedAt = Date.now();
      markClosed();
      wake();
      this.forgetOldFinished();
      this.emit('ended', info);
    };
    child.on('error', (error) => {
      entry.unread.push(`[failed to start: ${error.message}]\n`);
      entry.drained = true;
      ended(null, null);
    });
    // 'close' comes once the output pipes are drained too; if something the command
    // started keeps them open, the leader's exit is what counts.
    child.on('exit', (code, signal) => {
      setTimeout(() => ended(code, signal), PIPE_DRAIN_MS).unref();
    });
    child.on('close', (code, signal) => {
      entry.drained = true;
      ended(code, signal);
      wake();
    });
    this.entries.set(id, entry);
    live.add(this);
    installExitHook();
    this.emit('started', info);
    return { ...info };
  }

  /** Calls `listener` when a process starts or ends; returns the call that stops it. */
  subscribe(listener: ProcessListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private emit(type: ProcessEvent['type'], info: BackgroundInfo): void {
    for (const listener of [...this.listeners]) {
      // A listener's error is its own: the process and the other listeners go on.
      try {
        listener({ type, info: { ...info } });
      } catch {}
    }
  }

  private entry(id: string): Entry {
    const entry = this.entries.get(id);
    if (entry === undefined) {
      const known = [...this.entries.keys()];
      throw new ToolError(
        `No background process "${id}"`,
        known.length > 0
          ? `known ids: ${known.join(', ')}`
          : 'no background processes exist; start one with bg_start',
      );
    }
    return entry;
  }

  info(id: string): BackgroundInfo {
    return { ...this.entry(id).info };
  }

  /** The command of `id`, when it exists (for permission subjects). */
  commandOf(id: string): string | undefined {
    return this.entries.get(id)?.info.command;
  }

  /**
   * Waits up to `ms` for output to arrive, the process to end or its output to close;
   * returns at once when unread output exists or no more can come. (A process that has
   * exited may still have output in its pipes: that is waited for too.)
   */
  async waitForOutput(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    const entry = this.entry(id);
    if (ms <= 0 || entry.unread.totalChars > 0 || entry.drained) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        entry.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      entry.waiters.add(done);
    });
  }

  /** Waits up to `ms` for the process to end (returns at once when it has). */
  async waitForExit(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    const entry = this.entry(id);
    if (ms <= 0 || !entry.info.running) return;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: () => void = () => undefined;
    const elapsed = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      onAbort = resolve;
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    await Promise.race([entry.closed, elapsed]);
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }

  /** Output since the previous read (head+tail within `maxChars`), and the status. */
  read(id: string, maxChars: number): { info: BackgroundInfo; output: string } {
    const entry = this.entry(id);
    const output = entry.unread.totalChars > 0 ? entry.unread.toString(maxChars) : '';
    entry.unread = new HeadTailBuffer(Math.floor(this.maxBufferChars / 2));
    return { info: { ...entry.info }, output };
  }

  /** Writes to the process's stdin; `close` ends it (EOF) afterwards. */
  async write(id: string, text: string, close = false): Promise<void> {
    const entry = this.entry(id);
    const stdin = entry.child.stdin;
    if (!entry.info.running || stdin.destroyed || stdin.writableEnded) {
      throw new ToolError(
        `${id} ${entry.info.running ? 'no longer accepts input (stdin was closed)' : 'has exited'}`,
        'check it with bg_output, or start it again with bg_start',
      );
    }
    await new Promise<void>((resolve, reject) => {
      stdin.write(text, (error) => (error ? reject(error) : resolve()));
    }).catch((error: unknown) => {
      const detail = error instanceof Error ? error.message : String(error);
      throw new ToolError(
        `Could not write to ${id}: ${detail}`,
        'check whether it is still running with bg_output',
      );
    });
    if (close) stdin.end();
  }

  /** SIGTERM to the group, SIGKILL after the grace period; resolves when it has ended. */
  async kill(id: string): Promise<BackgroundInfo> {
    const entry = this.entry(id);
    if (entry.info.running) {
      signalGroup(entry.info.pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(entry.info.pid, 'SIGKILL'), this.killGraceMs);
      await entry.closed;
      clearTimeout(timer);
    }
    // Whatever the leader left behind in its group goes too.
    signalGroup(entry.info.pid, 'SIGKILL');
    return { ...entry.info };
  }

  list(): BackgroundInfo[] {
    return [...this.entries.values()].map((e) => ({ ...e.info }));
  }

  /** Kills every process group at once (synchronous, safe in an exit handler). */
  killAll(): void {
    for (const entry of this.entries.values()) signalGroup(entry.info.pid, 'SIGKILL');
    live.delete(this);
  }

  private forgetOldFinished(): void {
    const finished = [...this.entries.values()].filter((e) => !e.info.running);
    for (const old of finished.slice(0, Math.max(0, finished.length - this.maxFinished))) {
      this.entries.delete(old.info.id);
    }
  }
}

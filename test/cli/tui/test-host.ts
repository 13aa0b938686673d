/**
 * What the slash-command tests stand in for: the screen. A `TuiHost` over a REAL runtime
 * (temp Tea home, real SQLite, the scripted model server) that records what commands
 * print, pick, ask, submit and switch to, and answers pickers from a queue.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { Session } from '../../../src/agent/index.js';
import type { PickOptions, PrintTone, TuiCommand, TuiHost } from '../../../src/cli/tui/host.js';
import { loadConfig } from '../../../src/config/load.js';
import { createRuntime, type Runtime } from '../../../src/runtime/runtime.js';
import { useTempDirs } from '../../store/helpers.js';
import type { ModelServer } from '../../support/model-server.js';

export interface Printed {
  text: string;
  tone: PrintTone;
  markdown: boolean;
}

export class RecordingHost implements TuiHost {
  printed: Printed[] = [];
  picks: Array<PickOptions<unknown>> = [];
  submitted: string[] = [];
  switches: string[] = [];
  cleared = 0;
  refreshed = 0;
  exited = 0;
  running = false;
  /** How the next pickers answer: a function of the options (undefined = Esc). */
  answers: Array<(opts: PickOptions<unknown>) => unknown> = [];

  constructor(
    readonly runtime: Runtime,
    private current: Session,
  ) {}

  session(): Session {
    return this.current;
  }
  busy(): boolean {
    return this.running;
  }
  async switchTo(session: Session): Promise<void> {
    await this.current.settled();
    this.current = session;
    this.switches.push(session.id);
  }
  print(text: string, opts: { tone?: PrintTone; markdown?: boolean } = {}): void {
    this.printed.push({ text, tone: opts.tone ?? 'info', markdown: opts.markdown ?? false });
  }
  async pick<T>(opts: PickOptions<T>): Promise<T | undefined> {
    this.picks.push(opts as PickOptions<unknown>);
    const answer = this.answers.shift();
    return answer ? (answer(opts as PickOptions<unknown>) as T | undefined) : undefined;
  }
  async ask(): Promise<string | undefined> {
    return undefined;
  }
  submit(text: string): void {
    this.submitted.push(text);
  }
  clear(): void {
    this.cleared += 1;
  }
  /** Progress lines shown, and whether each was taken away again. */
  progressLines: Array<{ text: string; removed: boolean }> = [];

  progress(text: string): () => void {
    const line = { text, removed: false };
    this.progressLines.push(line);
    return () => {
      line.removed = true;
    };
  }

  refreshStatus(): void {
    this.refreshed += 1;
  }
  exit(): void {
    this.exited += 1;
  }

  /** Everything printed, one block per line group. */
  get output(): string {
    return this.printed.map((p) => p.text).join('\n');
  }
  /** The last printed block. */
  get last(): Printed {
    const p = this.printed.at(-1);
    if (!p) throw new Error('nothing was printed');
    return p;
  }
}

/** Runs `/name arg` as the screen would: finds the command by name or alias. */
export async function run(commands: readonly TuiCommand[], host: TuiHost, line: string): Promise<void> {
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(line);
  if (!m) throw new Error(`not a command line: ${line}`);
  const name = m[1]!.toLowerCase();
  const command = commands.find((c) => c.name === name || c.aliases?.includes(name));
  if (!command) throw new Error(`no command /${name}`);
  await command.run(m[2] ?? '', host);
}

export interface Workspace {
  rt: Runtime;
  home: string;
  work: string;
  host: RecordingHost;
}

/**
 * A runtime over a temp home whose config names the scripted server as `main_model`
 * (model `scripted-model`) and profile `other` (`other-model`), a first session, and a host.
 */
export function useWorkspace(server: () => ModelServer): (yaml?: string) => Promise<Workspace> {
  const tempDir = useTempDirs();
  const open: Runtime[] = [];
  afterEach(async () => {
    for (const rt of open.splice(0)) await rt.close();
    server().reset();
  });
  return async (yaml = '') => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const work = path.join(root, 'work');
    mkdirSync(home);
    mkdirSync(work);
    const url = server().openaiBaseUrl;
    writeFileSync(
      path.join(home, 'config.yaml'),
      [
        `main_model: { base_url: ${url}, api_key: sk-test-0123456789abcdefghij, model: scripted-model }`,
        'profiles:',
        `  other: { base_url: ${url}, api_key: sk-test, model: other-model }`,
        'llm: { timeout_s: 5, max_retries: 0 }',
        'agent: { auto_title: false }',
        'memory: { extract: false, tune: false, judge: false }',
        yaml,
      ].join('\n'),
    );
    const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
    const rt = await createRuntime({ config, cwd: work, warn: () => {} });
    open.push(rt);
    const host = new RecordingHost(rt, rt.sessions.create({ cwd: work }));
    return { rt, home, work, host };
  };
}

/**
 * The workflow runs `tea serve` executes: started, resumed or forked over HTTP, each
 * runs in the server process, not tied to the request that started it. On shutdown
 * they are cancelled (their completed nodes stay recorded; `resume` goes on, as after
 * Ctrl-C in `tea workflow run`); a server killed outright leaves them `interrupted`,
 * which `resume` also takes.
 */
import type { RunHandle, RunOutcome, WorkflowEvent } from '../multi/workflow/index.js';
import type { WorkflowsService } from '../runtime/workflows.js';
import type { ServerDeps } from './types.js';

export class WorkflowRuns {
  private loaded: Promise<WorkflowsService> | undefined;
  private readonly running = new Map<string, Promise<RunOutcome | undefined>>();
  private closing = false;

  constructor(private readonly deps: Pick<ServerDeps, 'workflows'>) {}

  /** The session of each agent node running here (by run, then node key), known from its first turn. */
  private readonly sessions = new Map<string, Map<string, string>>();

  /** The workflows service (loaded by the first request that needs it). */
  service(): Promise<WorkflowsService> {
    this.loaded ??= this.deps.workflows().then((wf) => {
      wf.subscribe((e) => this.note(e));
      return wf;
    });
    return this.loaded;
  }

  /** The session of agent node `nodeKey` of `runId` while it runs here (the run records it when the node ends). */
  liveSession(runId: string, nodeKey: string): string | undefined {
    return this.sessions.get(runId)?.get(nodeKey);
  }

  private note(e: WorkflowEvent): void {
    if (e.type === 'agent' && e.event.type === 'turn_start') {
      const nodes = this.sessions.get(e.runId) ?? new Map<string, string>();
      nodes.set(e.nodeKey, e.event.sessionId);
      this.sessions.set(e.runId, nodes);
    } else if (e.type === 'run_end') this.sessions.delete(e.runId);
  }

  /** Whether this server runs `runId` now (its events come through this process). */
  runsHere(runId: string): boolean {
    return this.running.has(runId);
  }

  /** Keeps a run this server started until it ends, waits or is cancelled. */
  track(handle: RunHandle): void {
    const { runId } = handle;
    const done = handle.done
      .catch((e: unknown) => {
        process.stderr.write(`tea serve: workflow run ${runId}: ${(e as Error).message ?? e}\n`);
        return undefined;
      })
      .finally(() => {
        if (this.running.get(runId) === done) this.running.delete(runId);
      });
    this.running.set(runId, done);
  }

  /** Cancels the runs still going (server shutdown), waiting at most `waitMs` for them to stop. */
  async closeAll(waitMs = 5000): Promise<void> {
    if (this.closing || this.running.size === 0 || !this.loaded) return;
    this.closing = true;
    const wf = await this.loaded;
    const stopping = [...this.running.keys()].map((id) => wf.cancel(id).catch(() => undefined));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(stopping),
      new Promise((resolve) => {
        timer = setTimeout(resolve, waitMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }
}

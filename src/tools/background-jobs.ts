/**
 * The background processes a runtime's tools have running (bg_start), for faces to
 * show: a count to read, and listeners told when one starts or ends, between turns
 * too (a dev server that exits on its own). The exec family reports here once it is
 * built; this module imports nothing, so the runtime makes one before any tool loads.
 */

/** A background process that is running. */
export interface BackgroundJob {
  /** The process manager's id, e.g. `bg1`. */
  id: string;
  name: string | undefined;
  command: string;
  /** The session whose tool call started it, when known. */
  sessionId: string | undefined;
  startedAt: number;
}

export interface BackgroundJobEvent {
  type: 'started' | 'ended';
  job: BackgroundJob;
  /** How many jobs run after this event. */
  running: number;
}

export type BackgroundJobListener = (event: BackgroundJobEvent) => void;

/** What a face sees of the running background jobs (`Runtime.backgroundJobs`). */
export interface BackgroundJobsView {
  /** The running jobs, oldest first; `sessionId` keeps those one session started. */
  running(sessionId?: string): BackgroundJob[];
  /** Calls `listener` on each start and end; returns the call that stops it. */
  subscribe(listener: BackgroundJobListener): () => void;
}

/** What a process manager reports (one reporter per manager: ids are unique within it). */
export type BackgroundJobReporter = (type: 'started' | 'ended', job: BackgroundJob) => void;

export class BackgroundJobs implements BackgroundJobsView {
  private readonly jobs = new Map<string, BackgroundJob>();
  private readonly listeners = new Set<BackgroundJobListener>();
  private sources = 0;

  running(sessionId?: string): BackgroundJob[] {
    const all = [...this.jobs.values()];
    return (sessionId === undefined ? all : all.filter((j) => j.sessionId === sessionId)).map((j) => ({
      ...j,
    }));
  }

  subscribe(listener: BackgroundJobListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** A reporter for one process manager. */
  reporter(): BackgroundJobReporter {
    const source = ++this.sources;
    return (type, job) => {
      const key = `${source}:${job.id}`;
      if (type === 'started') {
        if (this.jobs.has(key)) return;
        this.jobs.set(key, { ...job });
      } else if (!this.jobs.delete(key)) return;
      const event: BackgroundJobEvent = { type, job: { ...job }, running: this.jobs.size };
      for (const listener of [...this.listeners]) {
        // A face's failing listener must not break the process manager (or the others).
        try {
          listener(event);
        } catch {
          // The face's own error; the count it reads next time is still right.
        }
      }
    };
  }
}

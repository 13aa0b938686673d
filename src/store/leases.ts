/**
 * Session leases: at most one runner (a Session object in some process) works on a
 * session at a time, across processes. A lease is a row naming its owner and the
 * process holding it; it is released when the turn ends, renewed by a heartbeat
 * while it runs, and taken over when its process is gone (same host: the pid no
 * longer runs, or now belongs to another program) or, for another host, when it
 * has not been renewed before it expired.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';
import { StoreError, sqliteCode } from './errors.js';
import { requireText } from './validate.js';

/** The process that holds (or asks for) a lease. */
export interface LeaseOwner {
  /** Unique per runner, e.g. a random id per Session object. */
  id: string;
  pid: number;
  host: string;
  /** When the process started (Linux: /proc/<pid>/stat), to tell a reused pid apart. */
  procStart: string | null;
}

export interface Lease {
  sessionId: string;
  owner: string;
  pid: number;
  host: string;
  procStart: string | null;
  acquiredAt: number;
  heartbeatAt: number;
  expiresAt: number;
}

export type AcquireResult =
  | { ok: true /** The dead runner's lease this one replaced. */; replaced?: Lease }
  | { ok: false; holder: Lease };

interface LeaseRecord {
  session_id: string;
  owner: string;
  pid: number;
  host: string;
  proc_start: string | null;
  acquired_at: number;
  heartbeat_at: number;
  expires_at: number;
}

const COLUMNS = 'session_id, owner, pid, host, proc_start, acquired_at, heartbeat_at, expires_at';

/** Field 3 (state) and 22 (start time) of /proc/<pid>/stat; undefined where there is no such file. */
function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', start: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** When process `pid` started (Linux), or null where /proc does not say. */
export function processStart(pid: number): string | null {
  return procStat(pid)?.start ?? null;
}

let self: Omit<LeaseOwner, 'id'> | undefined;

/** This process, as a lease owner names it. */
export function thisProcess(): Omit<LeaseOwner, 'id'> {
  self ??= { pid: process.pid, host: hostname(), procStart: processStart(process.pid) };
  return self;
}

/** Whether process `pid` on this host is still the one that took a lease. */
function stillRunning(pid: number, procStart: string | null): boolean {
  const me = thisProcess();
  if (pid === me.pid) return procStart === me.procStart;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it runs, as another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(pid);
  if (stat === undefined) return true; // no /proc here: the pid answering is all we know
  // A zombie has exited (its parent has not reaped it yet); another start time is another program.
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return procStart === null || stat.start === procStart;
}

/** Whether a lease's holder may still be working: its process runs (same host), or it has not expired. */
export function leaseIsLive(lease: Lease, now: number): boolean {
  if (lease.host === thisProcess().host) return stillRunning(lease.pid, lease.procStart);
  return lease.expiresAt > now;
}

export class LeaseRepo {
  private readonly getStmt;
  private readonly allStmt;
  private readonly upsertStmt;
  private readonly renewStmt;
  private readonly releaseStmt;
  private readonly acquireTx;

  constructor(
    db: Database.Database,
    private readonly now: Clock,
  ) {
    this.getStmt = db.prepare<[string], LeaseRecord>(
      `SELECT ${COLUMNS} FROM session_leases WHERE session_id = ?`,
    );
    this.allStmt = db.prepare<[], LeaseRecord>(`SELECT ${COLUMNS} FROM session_leases`);
    this.upsertStmt = db.prepare<[LeaseRecord], void>(
      `INSERT INTO session_leases (${COLUMNS})
       VALUES (@session_id, @owner, @pid, @host, @proc_start, @acquired_at, @heartbeat_at, @expires_at)
       ON CONFLICT (session_id) DO UPDATE SET
         owner = excluded.owner, pid = excluded.pid, host = excluded.host,
         proc_start = excluded.proc_start, acquired_at = excluded.acquired_at,
         heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at`,
    );
    this.renewStmt = db.prepare<[number, number, string, string], void>(
      'UPDATE session_leases SET heartbeat_at = ?, expires_at = ? WHERE session_id = ? AND owner = ?',
    );
    this.releaseStmt = db.prepare<[string, string], void>(
      'DELETE FROM session_leases WHERE session_id = ? AND owner = ?',
    );
    // IMMEDIATE: two processes cannot both see the session free and both take it.
    this.acquireTx = db.transaction((sessionId: string, owner: LeaseOwner, ttlMs: number): AcquireResult => {
      const now = this.now();
      const found = this.getStmt.get(sessionId);
      const held = found === undefined ? undefined : toLease(found);
      if (held && held.owner !== owner.id && leaseIsLive(held, now)) return { ok: false, holder: held };
      this.upsertStmt.run({
        session_id: sessionId,
        owner: owner.id,
        pid: owner.pid,
        host: owner.host,
        proc_start: owner.procStart,
        acquired_at: now,
        heartbeat_at: now,
        expires_at: now + ttlMs,
      });
      return held && held.owner !== owner.id ? { ok: true, replaced: held } : { ok: true };
    }).immediate;
  }

  /** Takes the session's lease for `owner`, unless a live runner holds it. */
  acquire(sessionId: string, owner: LeaseOwner, ttlMs: number): AcquireResult {
    requireText(sessionId, 'session id');
    requireText(owner.id, 'lease owner');
    try {
      return this.acquireTx(sessionId, owner, ttlMs);
    } catch (err) {
      if (sqliteCode(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new StoreError(`cannot lease session: session not found: '${sessionId}'`, 'not-found', {
          cause: err,
        });
      }
      throw err;
    }
  }

  /** Pushes the expiry on; false when the lease is no longer `ownerId`'s (it was taken over). */
  renew(sessionId: string, ownerId: string, ttlMs: number): boolean {
    const now = this.now();
    return this.renewStmt.run(now, now + ttlMs, sessionId, ownerId).changes === 1;
  }

  /** Gives the lease up (a no-op when it is not `ownerId`'s). */
  release(sessionId: string, ownerId: string): void {
    this.releaseStmt.run(sessionId, ownerId);
  }

  get(sessionId: string): Lease | undefined {
    const record = this.getStmt.get(sessionId);
    return record === undefined ? undefined : toLease(record);
  }

  /** Every lease held now, live or not. */
  all(): Lease[] {
    return this.allStmt.all().map(toLease);
  }

  /** Whether `lease`'s holder may still be working (see `leaseIsLive`). */
  isLive(lease: Lease): boolean {
    return leaseIsLive(lease, this.now());
  }
}

function toLease(r: LeaseRecord): Lease {
  return {
    sessionId: r.session_id,
    owner: r.owner,
    pid: r.pid,
    host: r.host,
    procStart: r.proc_start,
    acquiredAt: r.acquired_at,
    heartbeatAt: r.heartbeat_at,
    expiresAt: r.expires_at,
  };
}

import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';
import { StoreError } from './errors.js';

/** Who wrote a prompt version: Tea itself (the built-in text), a person, or the evolve job. */
export type PromptSource = 'builtin' | 'user' | 'evolve';
/** `candidate`: proposed and unused until a person activates it. At most one is `active`. */
export type PromptStatus = 'active' | 'candidate' | 'retired';

export const PROMPT_SOURCES: readonly PromptSource[] = ['builtin', 'user', 'evolve'];

/** One stored version of the instruction part of the default system prompt. */
export interface PromptVersionRow {
  version: number;
  content: string;
  source: PromptSource;
  status: PromptStatus;
  note: string | null;
  /** The version that was active when this one was made (rollback goes back to it). */
  parentVersion: number | null;
  createdAt: number;
  /** When it last became active (null: never). */
  activatedAt: number | null;
}

export interface NewPromptVersion {
  content: string;
  source: Exclude<PromptSource, 'builtin'>;
  status: 'active' | 'candidate';
  note?: string;
  parentVersion?: number;
}

interface Row {
  version: number;
  content: string;
  source: PromptSource;
  status: PromptStatus;
  note: string | null;
  parent_version: number | null;
  created_at: number;
  activated_at: number | null;
}

const COLUMNS = 'version, content, source, status, note, parent_version, created_at, activated_at';

const toRow = (r: Row): PromptVersionRow => ({
  version: r.version,
  content: r.content,
  source: r.source,
  status: r.status,
  note: r.note,
  parentVersion: r.parent_version,
  createdAt: r.created_at,
  activatedAt: r.activated_at,
});

/**
 * Prompt versions (table `prompt_versions`). Version 1 is the built-in text, stored
 * (as `builtin`) only when the first other version is added, so a fresh home has no
 * rows and `active()` is one read of an empty index. Writes run in IMMEDIATE
 * transactions: two processes adding at once get versions n and n+1, never one twice.
 * Statements are prepared on first use (a session start reads only `active`).
 */
export class PromptVersionRepo {
  private readonly stmts = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly now: Clock,
  ) {}

  private stmt(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** The active version; undefined when none is stored (the built-in text is in force). */
  active(): PromptVersionRow | undefined {
    const r = this.stmt(`SELECT ${COLUMNS} FROM prompt_versions WHERE status = 'active'`).get() as
      | Row
      | undefined;
    return r && toRow(r);
  }

  get(version: number): PromptVersionRow | undefined {
    const r = this.stmt(`SELECT ${COLUMNS} FROM prompt_versions WHERE version = ?`).get(version) as
      | Row
      | undefined;
    return r && toRow(r);
  }

  /** Every stored version, oldest first. */
  list(): PromptVersionRow[] {
    return (this.stmt(`SELECT ${COLUMNS} FROM prompt_versions ORDER BY version`).all() as Row[]).map(toRow);
  }

  /**
   * Adds the next version. When nothing is stored yet, `builtin` (the built-in text)
   * is stored first as version 1, active. An `active` version retires the one before.
   */
  add(input: NewPromptVersion, builtin: string): PromptVersionRow {
    if (input.content.trim() === '') throw new StoreError('a prompt version cannot be empty', 'invalid');
    const step = this.db.transaction((): number => {
      const at = this.now();
      let latest = this.stmt('SELECT MAX(version) FROM prompt_versions').pluck().get() as number | null;
      if (latest === null) {
        this.insert({ version: 1, content: builtin, source: 'builtin', status: 'active', at });
        latest = 1;
      }
      const version = latest + 1;
      if (input.status === 'active') this.retireActive();
      this.insert({ ...input, version, at });
      return version;
    });
    return this.get(step.immediate())!;
  }

  /**
   * Makes `version` the active one and retires the one that was (a no-op when it is
   * already active). Throws `not-found` for a version that is not stored.
   */
  activate(version: number): PromptVersionRow {
    const step = this.db.transaction(() => {
      const row = this.get(version);
      if (!row) throw new StoreError(`no prompt version ${version}`, 'not-found');
      if (row.status === 'active') return;
      this.retireActive();
      this.stmt(`UPDATE prompt_versions SET status = 'active', activated_at = ? WHERE version = ?`).run(
        this.now(),
        version,
      );
    });
    step.immediate();
    return this.get(version)!;
  }

  private retireActive(): void {
    this.stmt(`UPDATE prompt_versions SET status = 'retired' WHERE status = 'active'`).run();
  }

  private insert(v: {
    version: number;
    content: string;
    source: PromptSource;
    status: PromptStatus;
    note?: string | undefined;
    parentVersion?: number | undefined;
    at: number;
  }): void {
    this.stmt(`INSERT INTO prompt_versions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(
      v.version,
      v.content,
      v.source,
      v.status,
      v.note ?? null,
      v.parentVersion ?? null,
      v.at,
      v.status === 'active' ? v.at : null,
    );
  }
}

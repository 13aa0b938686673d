/**
 * Prompt versions as people and faces use them: list, show, diff, set, promote,
 * rollback. A version holds the instruction part of the default system prompt (the
 * working directory, platform, date and permission lines stay generated). Version 1
 * is the built-in text and needs no row until something else is set; a builtin row
 * always stands for the built-in text of the running Tea, so an upgrade's better
 * wording reaches everyone who never changed theirs.
 */
import { createTwoFilesPatch } from 'diff';
import { BUILTIN_INSTRUCTIONS } from '../../agent/prompt.js';
import type {
  PromptSource,
  PromptStatus,
  PromptVersionRepo,
  PromptVersionRow,
} from '../../store/prompt-versions.js';
import { PromptError, refusal } from './errors.js';
import { countWords, normalise, promptProblems } from './guard.js';

export interface PromptVersionInfo {
  version: number;
  source: PromptSource;
  status: PromptStatus;
  note: string | null;
  parentVersion: number | null;
  /** Null for the built-in version while nothing is stored. */
  createdAt: number | null;
  activatedAt: number | null;
  /** False: the built-in text, implicit (no version was ever set). */
  stored: boolean;
  words: number;
  content: string;
}

export interface SetOptions {
  note?: string;
  /** Store it even though the guard finds problems (a person's explicit choice). */
  force?: boolean;
}

export interface Rollback {
  from: PromptVersionInfo;
  to: PromptVersionInfo;
}

export class PromptVersions {
  constructor(
    private readonly repo: PromptVersionRepo,
    /** Told the new active instructions (undefined: the built-in text) after every change. */
    private readonly onChange: (instructions: string | undefined) => void = () => {},
    private readonly builtin: string = BUILTIN_INSTRUCTIONS,
  ) {}

  /** Every version, oldest first (the implicit built-in one when none is stored). */
  list(): PromptVersionInfo[] {
    const rows = this.repo.list();
    return rows.length === 0 ? [this.implicit()] : rows.map((r) => this.info(r));
  }

  /** The version in force. */
  active(): PromptVersionInfo {
    const row = this.repo.active();
    return row ? this.info(row) : this.implicit();
  }

  /** One version (default: the active one); `not_found` names the versions there are. */
  get(version?: number): PromptVersionInfo {
    if (version === undefined) return this.active();
    checkNumber(version);
    const row = this.repo.get(version);
    if (row) return this.info(row);
    if (version === 1 && this.repo.list().length === 0) return this.implicit();
    const list = this.list();
    throw new PromptError(
      'not_found',
      `no prompt version ${version}: there ${list.length === 1 ? 'is version 1' : `are versions 1–${list.at(-1)!.version}`} (tea evolve prompts list)`,
    );
  }

  /** A unified diff from version `a` to version `b` (default: the active one); '' when equal. */
  diff(a: number, b?: number): string {
    const from = this.get(a);
    const to = this.get(b);
    const patch = createTwoFilesPatch(
      `v${from.version}`,
      `v${to.version}`,
      `${from.content}\n`,
      `${to.content}\n`,
      '',
      '',
      { context: 3 },
    );
    const body = patch.replace(/^=+\n/, '');
    return body.includes('\n@@') ? body : '';
  }

  /** Stores `content` as a new version written by a person and makes it active. */
  set(content: string, opts: SetOptions = {}): PromptVersionInfo {
    const text = normalise(content);
    const problems = promptProblems(text);
    if (problems.length > 0 && !(opts.force && text !== ''))
      throw refusal(
        'the prompt',
        opts.force ? problems : [...problems, 'to set it anyway, pass --force (API: "force": true)'],
      );
    const current = this.active();
    this.unchanged(text, current);
    const row = this.repo.add(
      {
        content: text,
        source: 'user',
        status: 'active',
        ...(opts.note ? { note: opts.note } : {}),
        parentVersion: current.version,
      },
      this.builtin,
    );
    this.changed(row);
    return this.info(row);
  }

  /** Stores a revision proposed by the evolve job as a candidate (unused until activated); the guard always applies. */
  propose(content: string, note: string): PromptVersionInfo {
    const text = normalise(content);
    const problems = promptProblems(text);
    if (problems.length > 0) throw refusal("the cheap model's revision", problems);
    const current = this.active();
    this.unchanged(text, current);
    const row = this.repo.add(
      { content: text, source: 'evolve', status: 'candidate', note, parentVersion: current.version },
      this.builtin,
    );
    return this.info(row);
  }

  /** Makes any stored version the active one (a candidate: promoted). */
  activate(version: number): PromptVersionInfo {
    const target = this.get(version);
    if (!target.stored || target.status === 'active') return target;
    const row = this.repo.activate(version);
    this.changed(row);
    return this.info(row);
  }

  /**
   * Back to `version`, or to the version that was active when the current one was made
   * (repeated, it walks back the chain to version 1). A candidate that was never active
   * is promoted, not rolled back to.
   */
  rollback(version?: number): Rollback {
    const from = this.active();
    const back = version ?? from.parentVersion;
    if (back === null || back === undefined)
      throw new PromptError(
        'invalid',
        `version ${from.version} is the built-in prompt and nothing came before it: there is nothing to roll back to`,
      );
    const target = this.get(back);
    if (target.version === from.version)
      throw new PromptError('unchanged', `version ${from.version} is the active version already`);
    if (target.status === 'candidate' && target.activatedAt === null)
      throw new PromptError(
        'invalid',
        `version ${target.version} is a candidate that was never active: promote it with tea evolve prompts set --promote ${target.version}`,
      );
    return { from, to: this.activate(target.version) };
  }

  private unchanged(text: string, current: PromptVersionInfo): void {
    if (text === current.content)
      throw new PromptError('unchanged', `that text is version ${current.version}, the active one, already`);
  }

  private changed(row: PromptVersionRow): void {
    this.onChange(row.source === 'builtin' ? undefined : row.content);
  }

  private info(r: PromptVersionRow): PromptVersionInfo {
    const content = r.source === 'builtin' ? this.builtin : r.content;
    return { ...r, stored: true, words: countWords(content), content };
  }

  private implicit(): PromptVersionInfo {
    return {
      version: 1,
      source: 'builtin',
      status: 'active',
      note: null,
      parentVersion: null,
      createdAt: null,
      activatedAt: null,
      stored: false,
      words: countWords(this.builtin),
      content: this.builtin,
    };
  }
}

function checkNumber(version: number): void {
  if (!Number.isSafeInteger(version) || version < 1)
    throw new PromptError('invalid', `a prompt version is a whole number from 1, got ${String(version)}`);
}

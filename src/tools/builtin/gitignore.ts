/**
 * .gitignore rules for tools that walk the workspace (tree, glob, grep's fallback):
 * the .gitignore files from the workspace root down to each path, nested ones
 * included, plus `.git/info/exclude` at the root and a few directories that are
 * always skipped. The `ignore` package is loaded on first use.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { Ignore } from 'ignore';
import type { ToolContext } from '../types.js';
import { rootOf } from '../workspace.js';

/** Directory names skipped wherever they appear unless a caller opts out. */
export const ALWAYS_SKIPPED: readonly string[] = ['.git', 'node_modules'];

export interface GitignoreOptions {
  /** Names skipped at any depth (default: `.git` and `node_modules`). */
  alwaysSkip?: readonly string[];
  /** Apply .gitignore rules (default true); false keeps only `alwaysSkip`. */
  useGitignore?: boolean;
}

export interface GitignoreMatcher {
  /** The directory the rules start from (the workspace root). */
  readonly root: string;
  /**
   * True when `abs` (an absolute path below `root`) is ignored: by a rule, because a
   * parent directory is, or because a path segment is always skipped. Paths outside
   * `root` are never ignored.
   */
  isIgnored(abs: string, isDir: boolean): boolean;
}

type IgnoreFactory = () => Ignore;

let factory: IgnoreFactory | undefined;

async function loadFactory(): Promise<IgnoreFactory> {
  factory ??= (await import('ignore')).default;
  return factory;
}

function readRules(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

class Matcher implements GitignoreMatcher {
  /** Parsed rules per directory (null: that directory has none). */
  private readonly rules = new Map<string, Ignore | null>();
  private readonly dirVerdicts = new Map<string, boolean>();

  constructor(
    readonly root: string,
    private readonly make: IgnoreFactory,
    private readonly skip: ReadonlySet<string>,
    private readonly useGitignore: boolean,
  ) {}

  isIgnored(abs: string, isDir: boolean): boolean {
    const rel = relative(this.root, abs);
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return false;
    const parts = rel.split(sep);
    if (parts.some((part) => this.skip.has(part))) return true;
    if (!this.useGitignore) return false;
    let dir = this.root;
    for (const part of parts.slice(0, -1)) {
      dir = join(dir, part);
      if (this.dirIgnored(dir)) return true;
    }
    return this.matchRules(abs, isDir);
  }

  private dirIgnored(dir: string): boolean {
    let verdict = this.dirVerdicts.get(dir);
    if (verdict === undefined) {
      verdict = this.matchRules(dir, true);
      this.dirVerdicts.set(dir, verdict);
    }
    return verdict;
  }

  /** The deepest .gitignore with an opinion about `abs` decides. */
  private matchRules(abs: string, isDir: boolean): boolean {
    let dir = dirname(abs);
    for (;;) {
      const rules = this.rulesFor(dir);
      if (rules) {
        const rel = relative(dir, abs).split(sep).join('/') + (isDir ? '/' : '');
        const result = rules.test(rel);
        if (result.ignored) return true;
        if (result.unignored) return false;
      }
      if (dir === this.root || dirname(dir) === dir) return false;
      dir = dirname(dir);
    }
  }

  private rulesFor(dir: string): Ignore | null {
    const cached = this.rules.get(dir);
    if (cached !== undefined) return cached;
    const texts = [readRules(join(dir, '.gitignore'))];
    if (dir === this.root) texts.unshift(readRules(join(dir, '.git', 'info', 'exclude')));
    const present = texts.filter((t): t is string => t !== undefined);
    const rules = present.length > 0 ? this.make().add(present.join('\n').replace(/\r/g, '')) : null;
    this.rules.set(dir, rules);
    return rules;
  }
}

/** A matcher for paths below `root`; .gitignore files are read lazily and cached. */
export async function loadGitignore(root: string, opts: GitignoreOptions = {}): Promise<GitignoreMatcher> {
  const make = await loadFactory();
  return new Matcher(root, make, new Set(opts.alwaysSkip ?? ALWAYS_SKIPPED), opts.useGitignore ?? true);
}

/** A matcher rooted at the workspace root that contains `abs` (itself when none does). */
export function gitignoreFor(
  ctx: Pick<ToolContext, 'cwd' | 'allowedRoots'>,
  abs: string,
  opts: GitignoreOptions = {},
): Promise<GitignoreMatcher> {
  return loadGitignore(rootOf(ctx, abs) ?? abs, opts);
}

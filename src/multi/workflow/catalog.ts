/**
 * Where workflows are found: the project's `.tea/workflows/`, the user's
 * `~/.tea/workflows/`, then the built-in flows shipped with tea (review, fix, test,
 * refactor, feature, docs). A file's name without its extension is the workflow's
 * name; a project file shadows a built-in of the same name (copy one to edit it).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { didYouMean } from '../../config/suggest.js';
import type { RunRow } from '../../store/index.js';
import { WorkflowDefinitionError, WorkflowRunError } from './errors.js';
import { parseWorkflowYaml } from './parse.js';
import type { DefinitionLoader } from './runner.js';
import type { WorkflowDefinition } from './types.js';

export const YAML_EXTS = ['.yaml', '.yml'];
export const MODULE_EXTS = ['.ts', '.mts', '.js', '.mjs'];
const EXTS = [...YAML_EXTS, ...MODULE_EXTS];

export type Where = 'project' | 'user' | 'builtin';

export interface CatalogEntry {
  name: string;
  where: Where;
  file: string;
  description?: string;
  /** The file does not load: why (the first line). */
  error?: string;
}

/** The directory of the built-in flows: beside this module (source), or dist/workflows (the bundle). */
export function builtinDir(): string | undefined {
  for (const rel of ['./flows/', './workflows/', '../workflows/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(path.join(dir, 'review.yaml'))) return dir;
  }
  return undefined;
}

export interface CatalogOptions {
  cwd: string;
  /** The Tea home (`~/.tea`). */
  home: string;
  /** Replaces the built-in flows' directory (tests). */
  builtins?: string;
}

export class WorkflowCatalog implements DefinitionLoader {
  constructor(private readonly opts: CatalogOptions) {}

  dirs(): Array<{ where: Where; dir: string }> {
    const out: Array<{ where: Where; dir: string }> = [
      { where: 'project', dir: path.join(this.opts.cwd, '.tea', 'workflows') },
      { where: 'user', dir: path.join(this.opts.home, 'workflows') },
    ];
    const builtins = this.opts.builtins ?? builtinDir();
    if (builtins) out.push({ where: 'builtin', dir: builtins });
    return out;
  }

  /** Every workflow file, project first; one that does not load is listed with its error. */
  async list(): Promise<CatalogEntry[]> {
    const out: CatalogEntry[] = [];
    for (const { where, dir } of this.dirs()) {
      let names: string[];
      try {
        names = readdirSync(dir).sort();
      } catch {
        continue;
      }
      for (const file of names) {
        const ext = path.extname(file);
        if (!EXTS.includes(ext) || file.endsWith('.d.ts')) continue;
        const full = path.join(dir, file);
        const name = path.basename(file, ext);
        try {
          const def = await this.load(full, where);
          out.push({ name, where, file: full, ...(def.description ? { description: def.description } : {}) });
        } catch (e) {
          out.push({ name, where, file: full, error: (e as Error).message.split('\n')[0]! });
        }
      }
    }
    return out;
  }

  /** A workflow by name (project, user, built-in) or by path (relative to `from`'s directory, or the workspace). */
  async resolve(nameOrPath: string, from?: string): Promise<WorkflowDefinition> {
    const isPath = /[\\/]/.test(nameOrPath) || EXTS.includes(path.extname(nameOrPath));
    if (isPath) {
      const base = from && !from.startsWith('builtin:') ? path.dirname(from) : this.opts.cwd;
      const file = path.resolve(base, nameOrPath);
      if (!existsSync(file)) throw new WorkflowRunError(`workflow file not found: ${file}`, 'not_found');
      return this.load(file, 'project');
    }
    for (const { where, dir } of this.dirs()) {
      for (const ext of EXTS) {
        const file = path.join(dir, `${nameOrPath}${ext}`);
        if (existsSync(file)) return this.load(file, where);
      }
    }
    const known = [...new Set((await this.list()).map((e) => e.name))];
    throw new WorkflowRunError(
      `no workflow named "${nameOrPath}"${didYouMean(nameOrPath, known)} (tea workflow list shows them; a file path works too)`,
      'not_found',
    );
  }

  /** Loads one file: YAML parsed and validated, a module transpiled and run (module.ts). */
  async load(file: string, where: Where): Promise<WorkflowDefinition> {
    if (MODULE_EXTS.includes(path.extname(file))) {
      const { loadWorkflowModule } = await import('./module.js');
      return loadWorkflowModule(file);
    }
    const text = readFileSync(file, 'utf8');
    const builtin = where === 'builtin';
    const name = path.basename(file, path.extname(file));
    return parseWorkflowYaml(
      text,
      { kind: builtin ? 'builtin' : 'yaml', file: builtin ? `builtin:${name}` : file },
      builtin ? `builtin:${name}` : file,
    );
  }

  /** The definition a stored run started from: its kept YAML text, or its module read again. */
  async forRun(run: RunRow): Promise<WorkflowDefinition> {
    if (run.definition !== null) {
      const builtin = run.source.startsWith('builtin:');
      try {
        return parseWorkflowYaml(run.definition, { kind: builtin ? 'builtin' : 'yaml', file: run.source });
      } catch (e) {
        if (e instanceof WorkflowDefinitionError) throw new WorkflowRunError(`run ${run.id}: ${e.message}`);
        throw e;
      }
    }
    if (!existsSync(run.source)) {
      throw new WorkflowRunError(`run ${run.id}: its workflow module ${run.source} is gone`, 'not_found');
    }
    return this.load(run.source, 'project');
  }
}

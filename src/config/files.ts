/** Finding and reading config files: the user file in the data home and the project file. */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { ConfigError, displayPath } from './errors.js';
import { issuesToError } from './issues.js';
import { fileSchema, type RawFile } from './schema.js';

export const CONFIG_FILE = 'config.yaml';

/** The data home: `$TEA_HOME` when set (a leading `~` is expanded), else `~/.tea`. */
export function teaHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.TEA_HOME?.trim();
  if (fromEnv) {
    if (fromEnv === '~' || fromEnv.startsWith('~/')) return join(homedir(), fromEnv.slice(1));
    return resolve(fromEnv);
  }
  return join(homedir(), '.tea');
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return resolve(a) === resolve(b);
  }
}

/**
 * The nearest `.tea/config.yaml` from `cwd` upwards, stopping after the git root
 * (a directory holding `.git`) or at the filesystem root. The user's own config
 * file is never returned as a project file.
 */
export function findProjectConfig(cwd: string, userFile: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, '.tea', CONFIG_FILE);
    if (existsSync(candidate) && !samePath(candidate, userFile)) return candidate;
    if (existsSync(join(dir, '.git'))) return undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Drops keys whose value is null (an empty `key:` in YAML), at every depth. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner !== null) out[key] = dropNulls(inner);
  }
  return out;
}

/** Parses YAML text; a syntax error names the file, line and column. */
export function parseYaml(text: string, file: string): unknown {
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (error) {
    const pos = error.linePos?.[0];
    // Only the first line of the parser's message: later lines quote the file,
    // which may hold a secret.
    const reason = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    const at = pos ? `line ${pos.line}, column ${pos.col}` : 'an unknown position';
    const fix =
      error.code === 'DUPLICATE_KEY'
        ? 'keep only one of the repeated keys.'
        : 'correct the YAML syntax there (indent nested keys with spaces, quote values with `: ` or `#`).';
    throw new ConfigError(`${displayPath(file)}: YAML syntax error at ${at}: ${reason}. Fix: ${fix}`, {
      file,
      fix,
      line: pos?.line,
      column: pos?.col,
    });
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new ConfigError(
      `${displayPath(file)}: expected a mapping of settings at the top level. Fix: start the file with keys such as \`main_model:\`.`,
      { file, expected: 'a mapping' },
    );
  }
  return dropNulls(doc.toJS() ?? {});
}

/**
 * Reads, parses and validates one config file. With `optional`, a file that does
 * not exist gives undefined instead of an error.
 */
export function readConfigFile(file: string, opts: { optional?: boolean } = {}): RawFile | undefined {
  if (opts.optional && !existsSync(file)) return undefined;
  let text: string;
  try {
    if (statSync(file).isDirectory()) throw new Error('it is a directory');
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ConfigError(`${displayPath(file)}: cannot read the config file: ${reason}.`, { file });
  }
  const raw = parseYaml(text, file);
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) throw issuesToError(file, raw, parsed.error.issues);
  return parsed.data;
}

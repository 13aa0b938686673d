/**
 * Reading and validating one config file. Loaded lazily (it pulls in the YAML
 * parser and the schema), only when a config file exists.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { ConfigError, displayPath } from './errors.js';
import { issuesToError } from './issues.js';
import { fileSchema, type RawFile } from './schema.js';
import { type ConfigSource, configSource } from './source.js';

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

interface Duplicate {
  /** The dotted path of the repeated key, e.g. `agent` or `agent.max_iterations`. */
  key: string;
  /** The lines of its first and its repeated occurrence. */
  lines: [number, number];
  /** It holds a section (a mapping) rather than a value. */
  section: boolean;
}

/** The repeated key the parser stopped at (its offset `at`): which key, and both its lines. */
function findDuplicate(text: string, at: number): Duplicate | undefined {
  const counter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter: counter });
  const line = (offset: number) => counter.linePos(offset).line;
  let found: Duplicate | undefined;
  const walk = (node: unknown, path: string): void => {
    if (isSeq(node)) {
      for (const [i, item] of node.items.entries()) walk(item, `${path}[${i}]`);
    }
    if (!isMap(node)) return;
    const seen = new Map<string, number>();
    for (const pair of node.items) {
      if (found) return;
      const name = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const start = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
      const key = path ? `${path}.${name}` : name;
      const first = seen.get(name);
      if (first !== undefined && start === at) {
        found = { key, lines: [line(first), line(start)], section: isMap(pair.value) };
        return;
      }
      if (first === undefined && start !== undefined) seen.set(name, start);
      walk(pair.value, key);
    }
  };
  walk(doc.contents, '');
  return found;
}

/** Parses YAML text; a syntax error names the file, line and column. */
export function parseYaml(text: string, file: string): unknown {
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (error) {
    const pos = error.linePos?.[0];
    // Only the first line of the parser's message: later lines quote the file,
    // which may hold a secret.
    let reason = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    const at = pos ? `line ${pos.line}, column ${pos.col}` : 'an unknown position';
    let fix =
      'correct the YAML syntax there (indent nested keys with spaces, quote values with `: ` or `#`).';
    if (error.code === 'DUPLICATE_KEY') {
      // Key names only, never values.
      const dup = findDuplicate(text, error.pos[0]);
      if (dup) reason = `the key "${dup.key}" appears twice (lines ${dup.lines[0]} and ${dup.lines[1]})`;
      fix = dup?.section
        ? `keep only one of the repeated keys: put the settings of both "${dup.key}" sections under one.`
        : 'keep only one of the repeated keys.';
    }
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
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    // The yaml package refuses an alias that expands too far (a "billion laughs"
    // file) with a ReferenceError; its Node and ES module builds say the same.
    if (!(err instanceof ReferenceError) || !/alias/i.test(err.message)) throw err;
    const fix = 'write the values out instead of repeating anchors (&name) through aliases (*name).';
    throw new ConfigError(
      `${displayPath(file)}: too many YAML aliases: the file expands into more than a config holds ` +
        `(anchors and aliases nested inside each other). Fix: ${fix}`,
      { file, fix },
    );
  }
  return dropNulls(value ?? {});
}

/** The yaml package's default: aliases may expand into at most this many nodes (per alias). */
const MAX_ALIAS_COUNT = 100;

/**
 * Reads, parses and validates one config file (or `bytes`, when the caller read it
 * already); its SHA-256 (project trust is keyed by it) is made from the very bytes
 * parsed, when first asked for. With `optional`, a missing file gives undefined.
 */
export function readConfigSource(
  file: string,
  opts: { optional?: boolean; bytes?: Buffer } = {},
): ConfigSource | undefined {
  let bytes = opts.bytes;
  if (bytes === undefined) {
    if (opts.optional && !existsSync(file)) return undefined;
    try {
      if (statSync(file).isDirectory()) throw new Error('it is a directory');
      bytes = readFileSync(file);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new ConfigError(`${displayPath(file)}: cannot read the config file: ${reason}.`, { file });
    }
  }
  const raw = parseYaml(bytes.toString('utf8'), file);
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) throw issuesToError(file, raw, parsed.error.issues);
  return configSource(parsed.data, bytes);
}

/**
 * Reads, parses and validates one config file. With `optional`, a file that does
 * not exist gives undefined instead of an error.
 */
export function readConfigFile(file: string, opts: { optional?: boolean } = {}): RawFile | undefined {
  return readConfigSource(file, opts)?.raw;
}

/** Turns zod issues into one ConfigError that names the file, key, expectation and fix. */

import type { z } from 'zod';
import { badValue, ConfigError, displayPath } from './errors.js';
import { hintFor } from './hints.js';
import { knownKeysAt } from './schema.js';
import { suggestKey } from './suggest.js';

type PathKey = PropertyKey;

/** Keys whose values are secrets and must never be echoed in a message. */
const SECRET_KEYS = new Set(['api_key', 'headers']);

/** `main_model.context_window`, `fallback[1]`, `models["qwen2.5:7b"]`. */
export function dottedKey(path: readonly PathKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(String(seg))) out += out ? `.${String(seg)}` : String(seg);
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

/** The path with record entries and list items written as `*`, e.g. `profiles.*.model`. */
function genericSegments(path: readonly PathKey[]): string[] {
  return path.map((seg, i) => {
    if (typeof seg === 'number') return '*';
    const first = path[0];
    if (i === 1 && (first === 'profiles' || first === 'models' || first === 'modes')) return '*';
    if (path[i - 1] === 'headers') return '*';
    return String(seg);
  });
}

function valueAt(root: unknown, path: readonly PathKey[]): unknown {
  let node = root;
  for (const seg of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[seg];
  }
  return node;
}

/** A short description of what was found, never echoing a secret. */
export function describeValue(value: unknown, secret = false): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (secret) return `a ${typeof value}`;
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  }
  return String(value);
}

function unknownKeyError(file: string, path: readonly PathKey[], keys: string[]): ConfigError {
  const known = knownKeysAt(genericSegments(path).join('.'));
  const first = keys[0] ?? '';
  const fullKey = dottedKey([...path, first]);
  const suggestion = suggestKey(first, known);
  const guess = suggestion ? `; did you mean "${suggestion}"?` : '.';
  const fix = suggestion
    ? `rename it to "${suggestion}", or remove it.`
    : `remove it; known keys here: ${known.join(', ')}.`;
  const others = keys.length > 1 ? ` (also unknown here: ${keys.slice(1).join(', ')})` : '';
  return new ConfigError(`${displayPath(file)}: ${fullKey}: unknown key${others}${guess} Fix: ${fix}`, {
    file,
    key: fullKey,
    expected: known.length ? `one of ${known.join(', ')}` : undefined,
    fix,
  });
}

function issueError(file: string, raw: unknown, issue: z.core.$ZodIssue): ConfigError {
  const path = issue.path;
  if (issue.code === 'unrecognized_keys') return unknownKeyError(file, path, issue.keys);
  const key = dottedKey(path) || '(top level)';
  if (issue.code === 'invalid_key') {
    const name = String(path[path.length - 1] ?? '');
    return badValue(
      {
        file,
        key,
        expected: 'a name made of letters, digits, _, . and -',
        fix: 'rename it, e.g. `deepseek` or `local-qwen`.',
      },
      JSON.stringify(name),
    );
  }
  const generic = genericSegments(path);
  const leaf = [...generic].reverse().find((seg) => seg !== '*');
  const hint = hintFor(generic.join('.'), leaf);
  const got = describeValue(valueAt(raw, path), leaf !== undefined && SECRET_KEYS.has(leaf));
  if (!hint) return badValue({ file, key, expected: issue.message.replace(/^Invalid input: /, '') }, got);
  return badValue({ file, key, expected: hint.expected, fix: hint.fix }, got);
}

/**
 * One ConfigError for all the issues of a file: its fields describe the first
 * issue; the message lists up to four more.
 */
export function issuesToError(file: string, raw: unknown, issues: readonly z.core.$ZodIssue[]): ConfigError {
  const [first, ...rest] = issues.map((issue) => issueError(file, raw, issue));
  if (!first) return new ConfigError(`${displayPath(file)}: invalid configuration.`, { file });
  if (rest.length === 0) return first;
  const more = rest.slice(0, 4).map((err) => `\n  also ${err.message}`);
  const omitted = rest.length > 4 ? `\n  ...and ${rest.length - 4} more.` : '';
  const combined = new ConfigError(`${first.message}${more.join('')}${omitted}`, first);
  return combined;
}

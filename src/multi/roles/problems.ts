/** Warnings about role files, in the config's style: the file, the key, what was expected, the fix. */
import { displayPath } from '../../config/errors.js';

export interface Problem {
  key: string;
  expected: string;
  got: string;
  fix: string;
}

/** A file that could not be used: `<file>: <key>: expected …, got …; the file was skipped. Fix: …` */
export function skippedMessage(file: string, p: Problem): string {
  return `${displayPath(file)}: ${p.key}: expected ${p.expected}, got ${p.got}; the file was skipped. Fix: ${p.fix}`;
}

/** A file that loaded with something ignored or changed: `<file>: <key>: <what>. Fix: …` */
export function noteMessage(file: string, key: string, what: string, fix?: string): string {
  const end = /[.?!]$/.test(what) ? '' : '.';
  return `${displayPath(file)}: ${key}: ${what}${end}${fix ? ` Fix: ${fix}` : ''}`;
}

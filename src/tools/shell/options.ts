/** The options of wrapper and runner commands, skipped to find the command they run. */
import type { ShellWord } from './types.js';

export interface OptionSpec {
  flags?: string;
  valued?: string;
  long?: string[];
  longValued?: string[];
}

/** Skips options; returns the index of the first operand, or null for an option it does not know. */
export function skipOptions(words: ShellWord[], start: number, spec: OptionSpec): number | null {
  let i = start;
  while (i < words.length) {
    const word = words[i]!;
    const v = word.value;
    if (word.kind !== 'static') return v.startsWith('-') || word.kind === 'dynamic' ? null : i;
    if (v === '--') return i + 1;
    if (v.startsWith('--')) {
      const name = v.split('=')[0]!;
      if (spec.long?.includes(name)) i += 1;
      else if (spec.longValued?.includes(name)) i += v.includes('=') ? 1 : 2;
      else return null;
      continue;
    }
    if (!v.startsWith('-') || v === '-') return i;
    let next = i + 1;
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      if (spec.valued?.includes(c)) {
        if (k === v.length - 1) next = i + 2;
        break;
      }
      if (!spec.flags?.includes(c)) return null;
    }
    i = next;
  }
  return i;
}

export const WRAPPERS: Record<string, OptionSpec> = {
  command: { flags: 'pvV' },
  builtin: {},
  exec: { flags: 'cl', valued: 'a' },
  nohup: {},
  nice: { valued: 'n', longValued: ['--adjustment'] },
  timeout: {
    flags: 'v',
    valued: 'sk',
    long: ['--preserve-status', '--foreground', '--verbose'],
    longValued: ['--signal', '--kill-after'],
  },
  stdbuf: { valued: 'ioe', longValued: ['--input', '--output', '--error'] },
  time: { flags: 'pvq', long: ['--portability', '--verbose', '--quiet'] },
};

export const SUDO: OptionSpec = {
  flags: 'AbEHiKklnPSsVvBN',
  valued: 'CDghpRrTtUu',
  long: [
    '--preserve-env',
    '--login',
    '--shell',
    '--non-interactive',
    '--background',
    '--askpass',
    '--set-home',
  ],
  longValued: ['--user', '--group', '--chdir', '--host', '--prompt', '--close-from', '--role', '--type'],
};
export const XARGS: OptionSpec = {
  flags: '0rtpxo',
  valued: 'adEILnPs',
  long: ['--null', '--no-run-if-empty', '--verbose', '--interactive', '--exit', '--open-tty'],
  longValued: ['--arg-file', '--delimiter', '--eof', '--replace', '--max-lines', '--max-args', '--max-procs'],
};

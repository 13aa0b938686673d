/**
 * Parsing the multi-file patch envelope popularised by OpenAI Codex:
 *
 *   *** Begin Patch
 *   *** Add File: <path>        then lines starting with "+"
 *   *** Delete File: <path>
 *   *** Update File: <path>
 *   *** Move to: <path>         (optional, right after Update File)
 *   @@ <optional anchor line>   then hunk lines starting with " ", "-" or "+"
 *   *** End of File             (optional: the hunk ends at the end of the file)
 *   *** End Patch
 *
 * Parsing is strict: every other line is an error that names its line number.
 */
import { ToolError } from '../types.js';

export interface HunkLine {
  op: ' ' | '-' | '+';
  text: string;
}

export interface PatchHunk {
  /** 1-based patch line where the hunk starts. */
  line: number;
  /** The text after `@@`: a line the hunk comes after (e.g. a function signature). */
  anchor?: string;
  ops: HunkLine[];
  /** The hunk must match at the end of the file. */
  endOfFile: boolean;
}

export type PatchOp =
  | { kind: 'add'; path: string; line: number; lines: string[] }
  | { kind: 'delete'; path: string; line: number }
  | { kind: 'update'; path: string; line: number; moveTo?: string; hunks: PatchHunk[] };

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const END_OF_FILE = '*** End of File';

/** Unified-diff ranges (`@@ -12,3 +12,4 @@`) carry no anchor text we can trust. */
const UNIFIED_RANGE = /^-\d+(,\d+)? \+\d+(,\d+)? @@/;

export const PATCH_FORMAT_HINT =
  'send "*** Begin Patch", then per file "*** Add File: p" (lines starting with +), "*** Delete File: p" or ' +
  '"*** Update File: p" with hunks ("@@ anchor", then lines starting with " ", "-" or "+"), then "*** End Patch"';

function syntaxError(line: number, message: string): ToolError {
  return new ToolError(`Invalid patch, line ${line}: ${message}`, PATCH_FORMAT_HINT);
}

const isFileHeader = (l: string): boolean =>
  l.startsWith(ADD) || l.startsWith(DELETE) || l.startsWith(UPDATE);

function pathAfter(line: string, prefix: string, at: number): string {
  const path = line.slice(prefix.length).trim();
  if (path === '') throw syntaxError(at, `"${prefix.trim()}" needs a path`);
  return path;
}

class Parser {
  private i: number;

  constructor(
    private readonly lines: readonly string[],
    start: number,
    private readonly end: number,
  ) {
    this.i = start;
  }

  private get lineNo(): number {
    return this.i + 1;
  }

  /** The index after the last non-blank line of the current file section. */
  private sectionEnd(): number {
    let j = this.i;
    while (j < this.end && !isFileHeader(this.lines[j] ?? '')) j++;
    while (j > this.i && (this.lines[j - 1] ?? '').trim() === '') j--;
    return j;
  }

  parse(): PatchOp[] {
    const ops: PatchOp[] = [];
    while (this.i < this.end) {
      const line = this.lines[this.i] ?? '';
      const at = this.lineNo;
      if (line.trim() === '') {
        this.i++;
      } else if (line.startsWith(ADD)) {
        const path = pathAfter(line, ADD, at);
        this.i++;
        ops.push({ kind: 'add', path, line: at, lines: this.addedLines() });
      } else if (line.startsWith(DELETE)) {
        const path = pathAfter(line, DELETE, at);
        this.i++;
        const stop = this.sectionEnd();
        if (this.i < stop) throw syntaxError(this.lineNo, `unexpected line after "*** Delete File: ${path}"`);
        this.i = stop;
        ops.push({ kind: 'delete', path, line: at });
      } else if (line.startsWith(UPDATE)) {
        ops.push(this.update(pathAfter(line, UPDATE, at), at));
      } else {
        throw syntaxError(
          at,
          `expected "*** Add File:", "*** Update File:" or "*** Delete File:", found "${line.slice(0, 80)}"`,
        );
      }
    }
    return ops;
  }

  private addedLines(): string[] {
    const stop = this.sectionEnd();
    const out: string[] = [];
    for (; this.i < stop; this.i++) {
      const line = this.lines[this.i] ?? '';
      if (!line.startsWith('+'))
        throw syntaxError(this.lineNo, 'every line of an added file must start with "+"');
      out.push(line.slice(1));
    }
    this.i = Math.max(this.i, stop);
    return out;
  }

  private update(path: string, at: number): PatchOp {
    this.i++;
    let moveTo: string | undefined;
    const next = this.lines[this.i] ?? '';
    if (next.startsWith(MOVE)) {
      moveTo = pathAfter(next, MOVE, this.lineNo);
      this.i++;
    }
    const stop = this.sectionEnd();
    const hunks: PatchHunk[] = [];
    let hunk: PatchHunk | undefined;
    const close = (): void => {
      if (!hunk) return;
      if (!hunk.ops.some((op) => op.op !== ' ')) {
        throw syntaxError(hunk.line, 'this hunk has no "-" or "+" lines');
      }
      hunks.push(hunk);
      hunk = undefined;
    };
    for (; this.i < stop; this.i++) {
      const line = this.lines[this.i] ?? '';
      if (line.startsWith('@@')) {
        close();
        const rest = line.slice(2).trim();
        hunk = { line: this.lineNo, ops: [], endOfFile: false };
        if (rest !== '' && !UNIFIED_RANGE.test(rest)) hunk.anchor = rest;
      } else if (line.trimEnd() === END_OF_FILE) {
        if (!hunk || hunk.ops.length === 0)
          throw syntaxError(this.lineNo, '"*** End of File" must end a hunk');
        hunk.endOfFile = true;
        close();
      } else if (line === '' || line[0] === ' ' || line[0] === '-' || line[0] === '+') {
        hunk ??= { line: this.lineNo, ops: [], endOfFile: false };
        const op = line === '' ? ' ' : (line[0] as HunkLine['op']);
        hunk.ops.push({ op, text: line.slice(1) });
      } else if (line.startsWith('***')) {
        throw syntaxError(this.lineNo, `unknown marker "${line.slice(0, 80)}"`);
      } else {
        throw syntaxError(
          this.lineNo,
          `hunk lines must start with " " (context), "-" (remove) or "+" (add), found "${line.slice(0, 80)}"`,
        );
      }
    }
    close();
    if (hunks.length === 0 && moveTo === undefined) {
      throw syntaxError(at, `"*** Update File: ${path}" has no hunks`);
    }
    return moveTo === undefined
      ? { kind: 'update', path, line: at, hunks }
      : { kind: 'update', path, line: at, moveTo, hunks };
  }
}

/** Parses a patch; throws a ToolError naming the first bad line. */
export function parsePatch(text: string): PatchOp[] {
  const lines = text.split(/\r?\n/);
  let first = 0;
  while (first < lines.length && (lines[first] ?? '').trim() === '') first++;
  let last = lines.length - 1;
  while (last > first && (lines[last] ?? '').trim() === '') last--;
  if ((lines[first] ?? '').trim() !== BEGIN) {
    throw syntaxError(first + 1, `the patch must start with "${BEGIN}"`);
  }
  if (last === first || (lines[last] ?? '').trim() !== END) {
    throw syntaxError(last + 1, `the patch must end with "${END}"`);
  }
  const ops = new Parser(lines, first + 1, last).parse();
  if (ops.length === 0) throw syntaxError(first + 1, 'the patch changes no files');
  return ops;
}

/** The paths a patch touches (sources and move targets), for permission rules. */
export function patchPaths(text: string): string[] {
  const paths: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    for (const prefix of [ADD, DELETE, UPDATE, MOVE]) {
      if (line.startsWith(prefix)) paths.push(line.slice(prefix.length).trim());
    }
  }
  return paths;
}

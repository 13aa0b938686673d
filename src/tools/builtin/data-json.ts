/**
 * json_query: a small jq-like path language over JSON text or a workspace file.
 * `.a.b`, `.a["key with space"]`, `[0]`, `[-1]`, `[1:3]`, `.items[].name`, `| length`, `| keys`.
 */
import { readFile, stat } from 'node:fs/promises';
import * as z from 'zod';
import { HINTS } from '../hints.js';
import { defineTool, type Tool, type ToolContext, ToolError } from '../types.js';
import { displayPath, resolvePath } from '../workspace.js';
import { parseJson } from './data-json-syntax.js';
import { formatSize } from './text.js';

type Step =
  | { kind: 'key'; key: string; text: string }
  | { kind: 'index'; index: number; text: string }
  | { kind: 'slice'; from: number | undefined; to: number | undefined; text: string }
  | { kind: 'iterate'; text: string }
  | { kind: 'builtin'; name: 'length' | 'keys'; text: string };

export interface Query {
  /** Pipeline stages; each is a list of steps applied in order. */
  stages: Step[][];
  /** The query iterates somewhere, so it yields a list of results. */
  iterates: boolean;
}

const QUERY_HINT =
  'write paths like .a.b, .items[0], .items[-1], .items[1:3], .items[].name, .a["key with space"], ' +
  '.items | length, . | keys';

function queryError(query: string, pos: number, message: string): ToolError {
  return new ToolError(
    `Bad query at position ${pos + 1}: ${message}\n  ${query}\n  ${' '.repeat(pos)}^`,
    QUERY_HINT,
  );
}

const NAME = /[\p{L}\p{N}_$-]+/uy;

/** Reads a quoted key starting at `pos`; returns the key and the index after the closing quote. */
function readQuoted(query: string, pos: number): { key: string; end: number } {
  const quote = query[pos];
  let i = pos + 1;
  while (i < query.length && query[i] !== quote) i += query[i] === '\\' ? 2 : 1;
  if (i >= query.length) throw queryError(query, pos, 'unterminated quoted key');
  const raw = query.slice(pos + 1, i);
  try {
    const key = JSON.parse(
      `"${quote === "'" ? raw.replace(/\\'/g, "'").replace(/"/g, '\\"') : raw}"`,
    ) as string;
    return { key, end: i + 1 };
  } catch {
    throw queryError(query, pos, 'invalid escape in a quoted key');
  }
}

function readBracket(query: string, pos: number): { step: Step; end: number } {
  const close = query.indexOf(']', pos);
  const inner = query.slice(pos + 1, close === -1 ? undefined : close).trim();
  if (inner.startsWith('"') || inner.startsWith("'")) {
    const start = query.indexOf(inner[0] ?? '"', pos);
    const { key, end } = readQuoted(query, start);
    const after = query.indexOf(']', end);
    if (after === -1 || query.slice(end, after).trim() !== '') throw queryError(query, end, 'expected "]"');
    return { step: { kind: 'key', key, text: `[${JSON.stringify(key)}]` }, end: after + 1 };
  }
  if (close === -1) throw queryError(query, pos, 'missing "]"');
  const end = close + 1;
  if (inner === '') return { step: { kind: 'iterate', text: '[]' }, end };
  const slice = /^(-?\d+)?\s*:\s*(-?\d+)?$/.exec(inner);
  if (slice) {
    const from = slice[1] === undefined ? undefined : Number(slice[1]);
    const to = slice[2] === undefined ? undefined : Number(slice[2]);
    return { step: { kind: 'slice', from, to, text: `[${inner}]` }, end };
  }
  if (/^-?\d+$/.test(inner))
    return { step: { kind: 'index', index: Number(inner), text: `[${inner}]` }, end };
  throw queryError(query, pos + 1, `expected an index, a slice like 1:3, a quoted key or nothing inside [ ]`);
}

export function parseQuery(query: string): Query {
  const stages: Step[][] = [];
  let steps: Step[] = [];
  let iterates = false;
  let i = 0;
  const skipSpace = (): void => {
    while (i < query.length && /\s/.test(query[i] ?? '')) i++;
  };
  skipSpace();
  if (i === query.length) throw queryError(query, 0, 'the query is empty (use "." for the whole document)');
  while (i < query.length) {
    skipSpace();
    const ch = query[i];
    if (ch === '|') {
      if (steps.length === 0 && stages.length === 0) throw queryError(query, i, 'nothing before "|"');
      stages.push(steps);
      steps = [];
      i++;
      skipSpace();
      if (i === query.length) throw queryError(query, i, 'nothing after "|"');
      continue;
    }
    if (ch === '[') {
      const { step, end } = readBracket(query, i);
      if (step.kind === 'iterate') iterates = true;
      steps.push(step);
      i = end;
      continue;
    }
    if (ch === '.') {
      const next = query[i + 1];
      if (next === '"' || next === "'") {
        const { key, end } = readQuoted(query, i + 1);
        steps.push({ kind: 'key', key, text: `.${JSON.stringify(key)}` });
        i = end;
        continue;
      }
      NAME.lastIndex = i + 1;
      const name = NAME.exec(query);
      if (name) {
        steps.push({ kind: 'key', key: name[0], text: `.${name[0]}` });
        i += 1 + name[0].length;
      } else i++; // a bare "." (identity) or ".[": the bracket follows
      continue;
    }
    NAME.lastIndex = i;
    const word = NAME.exec(query);
    if (word && (word[0] === 'length' || word[0] === 'keys') && steps.length === 0) {
      steps.push({ kind: 'builtin', name: word[0], text: word[0] });
      i += word[0].length;
      continue;
    }
    throw queryError(query, i, `unexpected ${JSON.stringify(ch)}; a path starts with "." or "["`);
  }
  stages.push(steps);
  return { stages, iterates };
}

const MISSING = Symbol('missing');
type Out = unknown | typeof MISSING;

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function applyStep(step: Step, value: unknown, at: string): Out[] {
  switch (step.kind) {
    case 'key': {
      if (value === null) return [MISSING];
      if (isObject(value)) return [Object.hasOwn(value, step.key) ? value[step.key] : MISSING];
      if ((Array.isArray(value) || typeof value === 'string') && step.key === 'length') return [value.length];
      if (Array.isArray(value) && /^\d+$/.test(step.key)) return [value[Number(step.key)] ?? MISSING];
      const tip = Array.isArray(value) ? ' (use [0] for an element or [] for each element)' : '';
      throw new ToolError(`Cannot read key "${step.key}" of ${typeName(value)} at ${at}${tip}`, QUERY_HINT);
    }
    case 'index': {
      if (value === null) return [MISSING];
      if (!Array.isArray(value)) {
        throw new ToolError(`Cannot index ${typeName(value)} with ${step.text} at ${at}`, QUERY_HINT);
      }
      const index = step.index < 0 ? value.length + step.index : step.index;
      return [index >= 0 && index < value.length ? value[index] : MISSING];
    }
    case 'slice': {
      if (!Array.isArray(value) && typeof value !== 'string') {
        throw new ToolError(`Cannot slice ${typeName(value)} at ${at}`, QUERY_HINT);
      }
      return [value.slice(step.from, step.to)];
    }
    case 'iterate': {
      if (Array.isArray(value)) return value;
      if (isObject(value)) return Object.values(value);
      throw new ToolError(`Cannot iterate over ${typeName(value)} at ${at}`, QUERY_HINT);
    }
    case 'builtin': {
      if (step.name === 'keys') {
        if (isObject(value)) return [Object.keys(value)];
        if (Array.isArray(value)) return [value.map((_, i) => i)];
        throw new ToolError(`${typeName(value)} has no keys (at ${at})`, QUERY_HINT);
      }
      if (value === null) return [0];
      if (Array.isArray(value) || typeof value === 'string') return [value.length];
      if (isObject(value)) return [Object.keys(value).length];
      throw new ToolError(`${typeName(value)} has no length (at ${at})`, QUERY_HINT);
    }
  }
}

function missingError(step: Step, inputs: unknown[], at: string): ToolError {
  if (step.kind === 'key') {
    const sample = inputs.find(isObject);
    const keys = sample ? Object.keys(sample) : [];
    const listed =
      keys.length > 0
        ? `; keys there: ${keys.slice(0, 30).join(', ')}${keys.length > 30 ? ', …' : ''}`
        : inputs.every((v) => v === null)
          ? ': the value there is null'
          : '';
    return new ToolError(`No key "${step.key}" at ${at}${listed}`, QUERY_HINT);
  }
  const lengths = inputs.filter(Array.isArray).map((a) => a.length);
  const size = lengths.length === 1 ? ` (the array there has ${lengths[0]} elements)` : '';
  return new ToolError(`Index ${step.text} is out of range at ${at}${size}`, QUERY_HINT);
}

/** Runs a parsed query; returns every result in order. */
export function runQuery(query: Query, document: unknown): unknown[] {
  let stream: unknown[] = [document];
  let path = '';
  query.stages.forEach((stage, index) => {
    if (index > 0) path += ' | ';
    for (const step of stage) {
      const at = path === '' || path.endsWith(' ') ? `${path}.` : path;
      const outputs: Out[] = stream.flatMap((value) => applyStep(step, value, at));
      if (outputs.length > 0 && outputs.every((o) => o === MISSING)) throw missingError(step, stream, at);
      stream = outputs.map((o) => (o === MISSING ? null : o));
      path += step.text;
    }
  });
  return stream;
}

async function loadDocument(ctx: ToolContext, path: string, maxBytes: number): Promise<string> {
  const abs = resolvePath(ctx, path, { mustExist: true });
  const info = await stat(abs);
  if (info.isDirectory()) throw new ToolError(`${path} is a directory, not a file`, HINTS.EISDIR);
  if (info.size > maxBytes) {
    throw new ToolError(
      `${displayPath(ctx, abs)} is ${formatSize(info.size)}, over the ${formatSize(maxBytes)} json_query limit`,
      'use grep or bash (e.g. jq) on files this large',
    );
  }
  return readFile(abs, { encoding: 'utf8', signal: ctx.signal });
}

export function jsonQueryTool(opts: { jsonMaxFileBytes: number }): Tool {
  return defineTool({
    name: 'json_query',
    description:
      'Query JSON text or a workspace JSON file with a jq-like path: `.a.b`, `.items[0]`, `[-1]`, `[1:3]`, ' +
      '`.items[].name` (each element), `.a["key with space"]`, `| length`, `| keys`; `.` is the whole document.',
    parameters: z.object({
      query: z.string().describe('Path expression, e.g. .items[].name'),
      json: z.string().optional().describe('JSON text to query'),
      path: z.string().optional().describe('Or: a JSON file in the workspace'),
    }),
    category: 'data',
    keywords: ['json', 'query', 'jq', 'extract', 'field', 'parse', 'path', 'package.json', '解析', '字段'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 30_000,
    subject: (args) => args.path ?? args.query,
    async execute(args, ctx) {
      if ((args.json === undefined) === (args.path === undefined)) {
        throw new ToolError(
          'Pass exactly one of `json` (text) or `path` (a file)',
          'e.g. {"path": "package.json", "query": ".scripts"}',
        );
      }
      const query = parseQuery(args.query);
      const source = args.path === undefined ? 'the json text' : args.path;
      const text =
        args.path === undefined
          ? (args.json ?? '')
          : await loadDocument(ctx, args.path, opts.jsonMaxFileBytes);
      const results = runQuery(query, parseJson(text, source));
      if (!query.iterates && results.length === 1) return JSON.stringify(results[0], null, 2) ?? 'null';
      return `${results.length} result${results.length === 1 ? '' : 's'}:\n${JSON.stringify(results, null, 2)}`;
    },
  });
}

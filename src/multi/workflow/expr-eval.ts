/**
 * Evaluating a parsed expression (expr-parse.ts) against the scope a node sees.
 * Reading a missing property gives `null` (like `?.`); names outside the scope,
 * prototype keys and unknown functions are errors.
 */
import { type Ast, ExprError, parseExpr } from './expr-parse.js';

/** What expressions and templates read. */
export interface Scope {
  /** The workflow's state (typed by its schema). */
  state: Record<string, unknown>;
  /** The run's input. */
  input: Record<string, unknown>;
  /** Finished nodes by id: `{ output, status }`. */
  nodes: Record<string, { output: unknown; status: string }>;
  /** In a node's `set`/`output` and an `end`'s output: the node's own result. */
  result?: unknown;
  /** Inside a loop body: `{ index, count }` of the innermost loop (index from 0). */
  loop?: { index: number; count: number };
}

export const SCOPE_NAMES = ['state', 'input', 'nodes', 'result', 'loop'] as const;

const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);

function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function len(v: unknown): number {
  if (typeof v === 'string' || Array.isArray(v)) return v.length;
  if (v !== null && typeof v === 'object') return Object.keys(v).length;
  return 0;
}

/** The functions expressions may call, by name. */
export const FUNCTIONS: Record<string, (...a: unknown[]) => unknown> = {
  len,
  contains: (h, n) => (Array.isArray(h) ? h.some((x) => equal(x, n)) : text(h).includes(text(n))),
  startsWith: (s, p) => text(s).startsWith(text(p)),
  endsWith: (s, p) => text(s).endsWith(text(p)),
  lower: (s) => text(s).toLowerCase(),
  upper: (s) => text(s).toUpperCase(),
  trim: (s) => text(s).trim(),
  string: text,
  number: (v) => (typeof v === 'number' ? v : Number(text(v).trim())),
  json: (v) => JSON.stringify(v ?? null),
  keys: (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : []),
  join: (a, sep) => (Array.isArray(a) ? a.map(text).join(sep === undefined ? ', ' : text(sep)) : text(a)),
  split: (s, sep) => text(s).split(text(sep)),
  lines: (s) =>
    text(s)
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  default: (v, d) => (v === null || v === undefined || v === '' ? d : v),
  min: (...xs) => Math.min(...xs.map(Number)),
  max: (...xs) => Math.max(...xs.map(Number)),
};

/** Structural equality of JSON-like values. */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

export function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  return Boolean(v);
}

function property(obj: unknown, key: unknown, src: string): unknown {
  if (obj === null || obj === undefined) return null;
  if (typeof key !== 'string' && typeof key !== 'number') return null;
  const name = String(key);
  if (FORBIDDEN.has(name)) throw new ExprError(`'${name}' cannot be read`, src);
  if (typeof obj === 'string' || Array.isArray(obj)) {
    if (name === 'length') return obj.length;
    const i = Number(name);
    if (!Number.isInteger(i)) return null;
    return (i < 0 ? obj[obj.length + i] : obj[i]) ?? null;
  }
  if (typeof obj !== 'object') return null;
  return Object.hasOwn(obj, name) ? (obj as Record<string, unknown>)[name] : null;
}

function arith(op: string, a: unknown, b: unknown, src: string): unknown {
  if (op === '+') {
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
    if (typeof a === 'number' && typeof b === 'number') return a + b;
    return text(a) + text(b);
  }
  if (typeof a !== 'number' || typeof b !== 'number') {
    throw new ExprError(
      `'${op}' needs two numbers, got ${text(a) || typeof a} and ${text(b) || typeof b}`,
      src,
    );
  }
  switch (op) {
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    default:
      return a % b;
  }
}

function compare(op: string, a: unknown, b: unknown): boolean {
  const both =
    (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!both) return false;
  const [x, y] = [a as number | string, b as number | string];
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}

export function evaluate(ast: Ast, scope: Scope, src: string): unknown {
  const ev = (n: Ast): unknown => {
    switch (n.t) {
      case 'lit':
        return n.v;
      case 'name':
        if (!(SCOPE_NAMES as readonly string[]).includes(n.name)) {
          throw new ExprError(`unknown name '${n.name}' (use ${SCOPE_NAMES.join(', ')})`, src);
        }
        return (scope as unknown as Record<string, unknown>)[n.name] ?? null;
      case 'get':
        return property(ev(n.obj), ev(n.key), src);
      case 'list':
        return n.items.map(ev);
      case 'call': {
        const fn = FUNCTIONS[n.fn];
        if (!fn || !Object.hasOwn(FUNCTIONS, n.fn)) throw new ExprError(`unknown function '${n.fn}'`, src);
        return fn(...n.args.map(ev));
      }
      case 'un':
        return n.op === '!' ? !truthy(ev(n.arg)) : -Number(ev(n.arg));
      case 'if':
        return truthy(ev(n.test)) ? ev(n.then) : ev(n.else);
      case 'bin': {
        if (n.op === '&&') {
          const l = ev(n.left);
          return truthy(l) ? ev(n.right) : l;
        }
        if (n.op === '||') {
          const l = ev(n.left);
          return truthy(l) ? l : ev(n.right);
        }
        const [l, r] = [ev(n.left), ev(n.right)];
        if (n.op === '==') return equal(l, r);
        if (n.op === '!=') return !equal(l, r);
        if (['<', '<=', '>', '>='].includes(n.op)) return compare(n.op, l, r);
        return arith(n.op, l, r, src);
      }
    }
  };
  return ev(ast);
}

const cache = new Map<string, Ast>();

/** Parses (once per text) and evaluates `src` in `scope`. */
export function evalExpr(src: string, scope: Scope): unknown {
  let ast = cache.get(src);
  if (!ast) {
    ast = parseExpr(src);
    cache.set(src, ast);
  }
  return evaluate(ast, scope, src);
}

/**
 * Templates: text with `{{ expression }}` parts (expr-parse.ts), e.g.
 * `Review {{input.path}} for {{join(state.focus, ' and ')}}`. A template that is one
 * `{{ … }}` and nothing else gives the value itself (a list stays a list, for tool
 * arguments and state); otherwise each value is put in the text (objects as JSON).
 * In a TypeScript definition a template may also be a function of the scope.
 */

import { evaluate, type Scope } from './expr-eval.js';
import { type Ast, parseExpr } from './expr-parse.js';

/** A template as a definition holds it: text, or (TypeScript) a function of the scope. */
export type Template = string | ((scope: Scope) => unknown);

type Piece = { text: string } | { expr: Ast; src: string };

const compiled = new Map<string, Piece[]>();

/** Splits a template into text and parsed expressions; throws an ExprError for a bad `{{ … }}`. */
export function compileTemplate(src: string): Piece[] {
  const hit = compiled.get(src);
  if (hit) return hit;
  const pieces: Piece[] = [];
  let i = 0;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    if (open < 0) {
      pieces.push({ text: src.slice(i) });
      break;
    }
    if (open > i) pieces.push({ text: src.slice(i, open) });
    const close = src.indexOf('}}', open + 2);
    if (close < 0) {
      pieces.push({ text: src.slice(open) });
      break;
    }
    const inner = src.slice(open + 2, close).trim();
    pieces.push({ expr: parseExpr(inner), src: inner });
    i = close + 2;
  }
  compiled.set(src, pieces);
  return pieces;
}

/** The expressions in a template (for validation). */
export function templateExprs(src: string): Ast[] {
  return compileTemplate(src).flatMap((p) => ('expr' in p ? [p.expr] : []));
}

function show(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  return typeof v === 'object' ? JSON.stringify(v, null, 2) : String(v);
}

/** The template's value in `scope`: the value itself for a lone `{{ … }}`, otherwise text. */
export function render(template: Template, scope: Scope): unknown {
  if (typeof template === 'function') return template(scope);
  const pieces = compileTemplate(template);
  const [only] = pieces;
  if (pieces.length === 1 && only && 'expr' in only) return evaluate(only.expr, scope, only.src);
  return pieces.map((p) => ('expr' in p ? show(evaluate(p.expr, scope, p.src)) : p.text)).join('');
}

/** The template's value as text. */
export function renderText(template: Template, scope: Scope): string {
  return show(render(template, scope));
}

/** Renders every template in a value (strings at any depth of objects and lists). */
export function renderDeep(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string' || typeof value === 'function') return render(value as Template, scope);
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, scope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, scope)]));
  }
  return value;
}

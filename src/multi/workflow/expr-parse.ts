/**
 * The expression language of workflow conditions and templates: a small, safe
 * subset of JavaScript expressions, parsed here into a tree and evaluated by
 * expr-eval.ts. Never `eval` or `new Function`: names resolve only to the scope a
 * node sees (`state`, `input`, `nodes`, `result`, `loop`), properties only to own
 * data, and calls only to the functions listed in expr-eval.ts.
 *
 *   literals   1, 2.5, 'text', "text", true, false, null, [1, 2]
 *   access     state.files, state.files[0], nodes.scan.output, state['odd key']
 *   operators  ! - * / % + - < <= > >= == != && || ?: (and `and`, `or`, `not`)
 *   calls      len(state.files) > 0, contains(result, 'LGTM'), lower(input.mode)
 */

export type Ast =
  | { t: 'lit'; v: unknown }
  | { t: 'name'; name: string }
  | { t: 'get'; obj: Ast; key: Ast }
  | { t: 'call'; fn: string; args: Ast[] }
  | { t: 'list'; items: Ast[] }
  | { t: 'un'; op: '!' | '-'; arg: Ast }
  | { t: 'bin'; op: string; left: Ast; right: Ast }
  | { t: 'if'; test: Ast; then: Ast; else: Ast };

export class ExprError extends Error {
  constructor(
    message: string,
    readonly source: string,
    readonly at?: number,
  ) {
    super(
      at === undefined ? `${message} in \`${source}\`` : `${message} at column ${at + 1} of \`${source}\``,
    );
    this.name = 'ExprError';
  }
}

type Token =
  | { k: 'num'; v: number; at: number }
  | { k: 'str'; v: string; at: number }
  | { k: 'id'; v: string; at: number }
  | { k: 'op'; v: string; at: number }
  | { k: 'end'; at: number };

const OPERATORS = ['===', '!==', '==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '+', '-', '*', '/', '%'];
const PUNCT = '()[].,?:';
const WORD_OPS: Record<string, string> = { and: '&&', or: '||', not: '!' };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (/[0-9]/.test(c)) {
      const m = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(src.slice(i))!;
      out.push({ k: 'num', v: Number(m[0]), at: i });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(src.slice(i))!;
      const word = Object.hasOwn(WORD_OPS, m[0]) ? WORD_OPS[m[0]] : undefined;
      out.push(word ? { k: 'op', v: word, at: i } : { k: 'id', v: m[0], at: i });
      i += m[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      const start = i;
      let text = '';
      i++;
      while (i < src.length && src[i] !== c) {
        if (src[i] === '\\' && i + 1 < src.length) {
          const e = src[i + 1]!;
          text += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          i += 2;
        } else text += src[i++];
      }
      if (i >= src.length) throw new ExprError('unterminated string', src, start);
      i++;
      out.push({ k: 'str', v: text, at: start });
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op) {
      // === and !== read as == and != (both compare strictly).
      out.push({ k: 'op', v: op.length === 3 ? op.slice(0, 2) : op, at: i });
      i += op.length;
      continue;
    }
    if (PUNCT.includes(c)) {
      out.push({ k: 'op', v: c, at: i });
      i++;
      continue;
    }
    throw new ExprError(`unexpected character '${c}'`, src, i);
  }
  out.push({ k: 'end', at: src.length });
  return out;
}

const LEVELS: string[][] = [
  ['||'],
  ['&&'],
  ['==', '!='],
  ['<', '<=', '>', '>='],
  ['+', '-'],
  ['*', '/', '%'],
];

/** Parses one expression; throws an ExprError naming the column of the first problem. */
export function parseExpr(src: string): Ast {
  const tokens = tokenize(src);
  let pos = 0;
  const peek = (): Token => tokens[pos]!;
  const isOp = (v: string): boolean => {
    const t = peek();
    return t.k === 'op' && t.v === v;
  };
  const expect = (v: string): void => {
    if (!isOp(v)) throw new ExprError(`expected '${v}'`, src, peek().at);
    pos++;
  };

  const expression = (): Ast => {
    const test = binary(0);
    if (!isOp('?')) return test;
    pos++;
    const then = expression();
    expect(':');
    return { t: 'if', test, then, else: expression() };
  };
  const binary = (level: number): Ast => {
    if (level >= LEVELS.length) return unary();
    let left = binary(level + 1);
    for (;;) {
      const t = peek();
      if (t.k !== 'op' || !LEVELS[level]!.includes(t.v)) return left;
      pos++;
      left = { t: 'bin', op: t.v, left, right: binary(level + 1) };
    }
  };
  const unary = (): Ast => {
    if (isOp('!') || isOp('-')) {
      const op = (peek() as { v: '!' | '-' }).v;
      pos++;
      return { t: 'un', op, arg: unary() };
    }
    return postfix(primary());
  };
  const postfix = (base: Ast): Ast => {
    let node = base;
    for (;;) {
      if (isOp('.')) {
        pos++;
        const t = peek();
        if (t.k !== 'id') throw new ExprError('expected a property name after "."', src, t.at);
        pos++;
        node = { t: 'get', obj: node, key: { t: 'lit', v: t.v } };
      } else if (isOp('[')) {
        pos++;
        const key = expression();
        expect(']');
        node = { t: 'get', obj: node, key };
      } else return node;
    }
  };
  const list = (close: string): Ast[] => {
    const items: Ast[] = [];
    if (isOp(close)) {
      pos++;
      return items;
    }
    for (;;) {
      items.push(expression());
      if (isOp(close)) {
        pos++;
        return items;
      }
      expect(',');
    }
  };
  const primary = (): Ast => {
    const t = peek();
    pos++;
    if (t.k === 'num' || t.k === 'str') return { t: 'lit', v: t.v };
    if (t.k === 'id') {
      if (t.v === 'true' || t.v === 'false') return { t: 'lit', v: t.v === 'true' };
      if (t.v === 'null') return { t: 'lit', v: null };
      if (isOp('(')) {
        pos++;
        return { t: 'call', fn: t.v, args: list(')') };
      }
      return { t: 'name', name: t.v };
    }
    if (t.k === 'op' && t.v === '(') {
      const inner = expression();
      expect(')');
      return inner;
    }
    if (t.k === 'op' && t.v === '[') return { t: 'list', items: list(']') };
    if (t.k === 'end') throw new ExprError('the expression ends too early', src, t.at);
    throw new ExprError(`unexpected '${t.v}'`, src, t.at);
  };

  if (src.trim() === '') throw new ExprError('empty expression', src);
  const ast = expression();
  if (peek().k !== 'end')
    throw new ExprError(`unexpected '${String((peek() as { v?: unknown }).v)}'`, src, peek().at);
  return ast;
}

/** The dotted paths an expression reads from its root names (`state.files`, `nodes.scan`), for validation. */
export function pathsOf(ast: Ast): string[][] {
  const out: string[][] = [];
  const chain = (node: Ast): string[] | undefined => {
    if (node.t === 'name') return [node.name];
    if (node.t === 'get') {
      const base = chain(node.obj);
      if (base && node.key.t === 'lit' && typeof node.key.v === 'string') return [...base, node.key.v];
      return base;
    }
    return undefined;
  };
  const walk = (node: Ast): void => {
    const c = chain(node);
    if (c) {
      out.push(c);
      for (let o: Ast = node; o.t === 'get'; o = o.obj) if (o.key.t !== 'lit') walk(o.key);
      return;
    }
    switch (node.t) {
      case 'get':
        walk(node.obj);
        walk(node.key);
        return;
      case 'call':
      case 'list':
        for (const a of node.t === 'call' ? node.args : node.items) walk(a);
        return;
      case 'un':
        walk(node.arg);
        return;
      case 'bin':
        walk(node.left);
        walk(node.right);
        return;
      case 'if':
        walk(node.test);
        walk(node.then);
        walk(node.else);
        return;
      default:
        return;
    }
  };
  walk(ast);
  return out;
}

/** The functions an expression calls, for validation. */
export function callsOf(ast: Ast): string[] {
  const out: string[] = [];
  const walk = (n: Ast): void => {
    if (n.t === 'call') out.push(n.fn);
    if (n.t === 'get') [n.obj, n.key].forEach(walk);
    if (n.t === 'call') n.args.forEach(walk);
    if (n.t === 'list') n.items.forEach(walk);
    if (n.t === 'un') walk(n.arg);
    if (n.t === 'bin') [n.left, n.right].forEach(walk);
    if (n.t === 'if') [n.test, n.then, n.else].forEach(walk);
  };
  walk(ast);
  return out;
}

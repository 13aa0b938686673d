/**
 * Reads a bash command line the way bash will: every simple command in it
 * (lists, pipelines, subshells, blocks, loops, `$(…)`, backticks, `<(…)`,
 * `>(…)`, here-docs, `bash -c` and `eval` payloads) with quotes removed and
 * names resolved, every redirection to a file, and everything that cannot be
 * resolved without running it (expansions in command position, arithmetic,
 * `$'…'`, unusual characters, syntax errors).
 */
import type {
  ShAssign,
  ShBinaryCmd,
  ShCallExpr,
  ShCaseClause,
  ShDblQuoted,
  ShForClause,
  ShFuncDecl,
  ShIfClause,
  ShLit,
  ShNode,
  ShParamExp,
  ShRedirect,
  ShSglQuoted,
  ShStmt,
  ShStmtHolder,
  ShStmts,
  ShSyntax,
  ShWhileClause,
  ShWord,
  ShWordIter,
} from './ast.js';
import { resolveCommand } from './commands.js';
import { isRiskyEnvName } from './env.js';
import { doubleQuoted, hex, hiddenChar, unquoted } from './literals.js';
import { allNodes, parseWith, shellParser } from './parser.js';
import type { ShellAnalysis, ShellWord, WordKind } from './types.js';

/** Longer command lines are not read (parsing time grows with length): they always need approval. */
export const MAX_COMMAND_CHARS = 10_000;
/**
 * At most this many syntax nodes are read per line (each costs about 0.1 ms through
 * the GopherJS bridge); a line with more needs approval.
 */
export const MAX_NODES = 2_000;

class TooLarge extends Error {}
/** How deep `bash -c "bash -c '…'"` and `eval` payloads are followed. */
const MAX_DEPTH = 4;

class Source {
  private readonly bytes: Buffer;
  private readonly seen = new Set<string>();
  constructor(
    readonly syntax: ShSyntax,
    text: string,
    private readonly budget: { left: number },
  ) {
    this.bytes = Buffer.from(text, 'utf8');
  }
  text(node: ShNode): string {
    return this.slice(node.Pos().Offset(), node.End().Offset());
  }
  slice(from: number, to: number): string {
    return this.bytes.subarray(from, to).toString('utf8');
  }
  /** True the first time a statement is visited (the tree walker hands out fresh wrapper objects). */
  first(node: ShStmt): boolean {
    const key = `${node.Pos().Offset()}:${node.End().Offset()}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
  type(node: ShNode): string {
    if (--this.budget.left < 0) throw new TooLarge();
    return this.syntax.NodeType(node);
  }
}

class Analyzer {
  readonly result: ShellAnalysis = { commands: [], redirects: [], problems: [], changesDir: false };
  private readonly budget = { left: MAX_NODES };
  constructor(private readonly syntax: ShSyntax) {}

  script(text: string, depth: number): void {
    const problems = this.result.problems;
    const hidden = hiddenChar(text);
    if (hidden !== undefined) {
      problems.push({ source: text, why: `a control or invisible character, ${hex(hidden)}` });
      return;
    }
    if (text.length > MAX_COMMAND_CHARS) {
      problems.push({ source: `${text.slice(0, 80)}…`, why: `longer than ${MAX_COMMAND_CHARS} characters` });
      return;
    }
    if (depth > MAX_DEPTH) {
      problems.push({ source: text, why: 'shell code nested too deeply' });
      return;
    }
    const parsed = parseWith(this.syntax, text);
    if (!parsed.ok) {
      problems.push({ source: text, why: `bash syntax the check cannot read: ${parsed.error}` });
      return;
    }
    const src = new Source(this.syntax, text, this.budget);
    this.stmts(src, parsed.file.Stmts, depth);
    // A second look through the whole tree: a statement the walk above did not reach
    // (a construct it does not follow) is read now and marks the line as not understood.
    for (const node of allNodes(this.syntax, parsed.file)) {
      if (src.type(node) === 'Stmt' && src.first(node as ShStmt)) {
        this.result.problems.push({
          source: src.text(node),
          why: 'a command in a place the check does not follow',
        });
        this.stmt(src, node as ShStmt, depth, true);
      }
    }
  }

  private problem(src: Source, node: ShNode, why: string, depth: number): void {
    this.result.problems.push({ source: src.text(node), why });
    // Commands inside what cannot be resolved are still read, so deny rules see them.
    for (const inner of allNodes(this.syntax, node)) {
      if (inner !== node && src.type(inner) === 'Stmt') this.stmt(src, inner as ShStmt, depth);
    }
  }

  private stmts(src: Source, list: readonly ShStmt[] | null, depth: number): void {
    for (const s of list ?? []) this.stmt(src, s, depth);
  }

  private stmt(src: Source, s: ShStmt, depth: number, seen = false): void {
    if (!seen && !src.first(s)) return;
    for (const r of s.Redirs ?? []) this.redirect(src, r, depth);
    if (s.Cmd) this.command(src, s.Cmd, depth);
  }

  private command(src: Source, node: ShNode, depth: number): void {
    const type = src.type(node);
    switch (type) {
      case 'CallExpr':
        this.call(src, node as ShCallExpr, depth);
        return;
      case 'BinaryCmd': {
        const b = node as ShBinaryCmd;
        this.stmt(src, b.X, depth);
        this.stmt(src, b.Y, depth);
        return;
      }
      case 'Block':
      case 'Subshell':
        this.stmts(src, (node as ShStmts).Stmts, depth);
        return;
      case 'IfClause':
        for (let c: ShIfClause | null = node as ShIfClause; c; c = c.Else) {
          this.stmts(src, c.Cond, depth);
          this.stmts(src, c.Then, depth);
        }
        return;
      case 'WhileClause':
        this.stmts(src, (node as ShWhileClause).Cond, depth);
        this.stmts(src, (node as ShWhileClause).Do, depth);
        return;
      case 'ForClause': {
        const f = node as ShForClause;
        if (src.type(f.Loop) === 'WordIter') {
          for (const w of (f.Loop as ShWordIter).Items ?? []) this.word(src, w, depth);
        } else {
          this.problem(src, f.Loop, 'an arithmetic for loop', depth);
        }
        this.stmts(src, f.Do, depth);
        return;
      }
      case 'CaseClause': {
        const c = node as ShCaseClause;
        this.word(src, c.Word, depth);
        for (const item of c.Items ?? []) {
          for (const p of item.Patterns ?? []) this.word(src, p, depth);
          this.stmts(src, item.Stmts, depth);
        }
        return;
      }
      case 'TimeClause':
      case 'CoprocClause': {
        const inner = (node as ShStmtHolder).Stmt;
        if (inner) this.stmt(src, inner, depth);
        return;
      }
      case 'FuncDecl':
        this.result.problems.push({
          source: src.text(node),
          why: 'a function definition, which can stand in for any command',
        });
        this.stmt(src, (node as ShFuncDecl).Body, depth);
        return;
      case 'DeclClause':
        this.problem(src, node, 'declare/export/local/readonly change variables later commands use', depth);
        return;
      case 'ArithmCmd':
      case 'LetClause':
        this.problem(src, node, 'arithmetic can run commands hidden in variables', depth);
        return;
      case 'TestClause':
        this.problem(src, node, 'a [[ … ]] test, whose arithmetic can run commands', depth);
        return;
      default:
        this.problem(src, node, `a ${type} construct the check does not follow`, depth);
        return;
    }
  }

  private call(src: Source, call: ShCallExpr, depth: number): void {
    const assigns = call.Assigns ?? [];
    for (const a of assigns) this.assign(src, a, depth);
    const words = (call.Args ?? []).map((w) => this.word(src, w, depth));
    if (words.length === 0) {
      if (assigns.length > 0) {
        this.result.problems.push({
          source: src.text(call),
          why: 'a variable assignment, which changes later commands',
        });
      }
      return;
    }
    const resolved = resolveCommand(words);
    for (const c of resolved.commands) {
      if (c.cd) this.result.changesDir = true;
      this.result.commands.push(c);
    }
    this.result.problems.push(...resolved.problems);
    for (const s of resolved.scripts) this.script(s.code, depth + 1);
  }

  private assign(src: Source, a: ShAssign, depth: number): void {
    const name = a.Name?.Value ?? '';
    if (a.Index || a.Array || a.Append || a.Naked) {
      this.problem(src, a, 'an array, append or declare-style assignment', depth);
      return;
    }
    if (isRiskyEnvName(name)) {
      this.result.problems.push({
        source: src.text(a),
        why: `setting ${name} changes which program runs or how`,
      });
    }
    if (a.Value) this.word(src, a.Value, depth);
  }

  private redirect(src: Source, r: ShRedirect, depth: number): void {
    const rest = src.slice(r.OpPos.Offset(), r.End().Offset());
    const op = /^(&>>|&>|>>|>\||>&|<&|<<<|<<-|<<|<>|>|<)/.exec(rest)?.[1] ?? '?';
    const word = r.Word ? this.word(src, r.Word, depth) : undefined;
    if (r.Hdoc) this.word(src, r.Hdoc, depth);
    if (op === '<<' || op === '<<-' || op === '<<<' || !word) return;
    if ((op === '>&' || op === '<&') && word.kind === 'static' && /^(\d+-?|-)$/.test(word.value)) return;
    const write = op !== '<' && op !== '<&';
    const target = word.kind === 'static' ? word.value : null;
    this.result.redirects.push({ op, target, write, source: src.text(r) });
  }

  /** A word with its quotes removed; commands inside it (`$(…)`, `<(…)`) are read too. */
  word(src: Source, w: ShWord, depth: number): ShellWord {
    let value = '';
    let kind: WordKind = 'static';
    let escaped = false;
    const worse = (k: WordKind) => {
      if (k === 'dynamic' || (k === 'pattern' && kind === 'static')) kind = k;
    };
    (w.Parts ?? []).forEach((part, index) => {
      const type = src.type(part);
      if (type === 'Lit') {
        const lit = unquoted((part as ShLit).Value, index === 0);
        value += lit.value;
        if (lit.pattern) worse('pattern');
        if (lit.operator) escaped = true;
      } else if (type === 'SglQuoted') {
        const q = part as ShSglQuoted;
        if (q.Dollar) worse('dynamic');
        value += q.Dollar ? src.text(part) : q.Value;
      } else if (type === 'DblQuoted') {
        const q = part as ShDblQuoted;
        if (q.Dollar) worse('dynamic');
        for (const inner of q.Parts ?? []) {
          if (src.type(inner) === 'Lit') value += doubleQuoted((inner as ShLit).Value);
          else {
            worse('dynamic');
            value += src.text(inner);
            this.expansion(src, inner, depth);
          }
        }
      } else {
        worse(type === 'ExtGlob' || type === 'BraceExp' ? 'pattern' : 'dynamic');
        value += src.text(part);
        this.expansion(src, part, depth);
      }
    });
    // `find … \;` and `\(` are plain; `npm\;curl` is one word that reads like two commands.
    if (escaped && value.length > 1) {
      this.result.problems.push({ source: src.text(w), why: 'a shell operator escaped inside a word' });
    }
    return { value, kind, source: src.text(w) };
  }

  private expansion(src: Source, part: ShNode, depth: number): void {
    const type = src.type(part);
    if (type === 'CmdSubst' || type === 'ProcSubst') {
      this.stmts(src, (part as ShStmts).Stmts, depth);
      return;
    }
    if (type === 'ParamExp') {
      const p = part as ShParamExp;
      const plain = !p.Excl && !p.Index && !p.Slice && !p.Repl && !p.Exp && !p.Names && !p.Width;
      if (!plain) this.problem(src, part, 'a parameter expansion with an operator', depth);
      return;
    }
    if (type === 'ArithmExp') {
      this.problem(src, part, 'arithmetic can run commands hidden in variables', depth);
      return;
    }
    if (type === 'ExtGlob' || type === 'BraceExp') return;
    this.problem(src, part, `a ${type} expansion the check does not follow`, depth);
  }
}

const cache = new Map<string, ShellAnalysis>();
const CACHE_SIZE = 64;

/** Reads a bash command line (the parser is loaded on first use). */
export async function analyzeShell(command: string): Promise<ShellAnalysis> {
  const hit = cache.get(command);
  if (hit) return hit;
  const analyzer = new Analyzer(await shellParser());
  const result = analyzer.result;
  try {
    analyzer.script(command, 0);
  } catch (error) {
    // What was read so far stays (deny rules still see it); the rest is unknown.
    const why =
      error instanceof TooLarge
        ? `more than ${MAX_NODES} syntax nodes, too large to check`
        : error instanceof RangeError
          ? 'nested too deeply to check'
          : `the check failed: ${error instanceof Error ? error.message : String(error)}`;
    result.problems.push({ source: command.length > 80 ? `${command.slice(0, 79)}…` : command, why });
  }
  if (command.length <= MAX_COMMAND_CHARS) {
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(command, result);
  }
  return result;
}

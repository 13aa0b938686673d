/**
 * The bash parser behind the permission check: mvdan/sh (the parser of shfmt),
 * loaded once and only when a shell command is first checked, so starting `tea`
 * for anything else never pays for it.
 *
 * Why `mvdan-sh` (mvdan/sh compiled to JavaScript) and not `sh-syntax` (the same
 * parser compiled to WASM): sh-syntax 0.7.0 returns only the top-level statements
 * and positions; a command's inside (pipes, `&&` lists, `$(…)`, words, quotes) is
 * not in its result, and the check needs all of it.
 */
import type { ShFile, ShNode, ShSyntax } from './ast.js';

export type ParseResult = { ok: true; file: ShFile } | { ok: false; error: string };

let loading: Promise<ShSyntax> | undefined;
let loaded: ShSyntax | undefined;

async function load(): Promise<ShSyntax> {
  // The GopherJS runtime raises Error.stackTraceLimit to Infinity and leaves a
  // global `require` behind; both are put back as they were.
  const limit = Error.stackTraceLimit;
  const hadRequire = Object.hasOwn(globalThis, 'require');
  try {
    const mod = await import('mvdan-sh');
    loaded = mod.default.syntax;
    return loaded;
  } finally {
    Error.stackTraceLimit = limit;
    if (!hadRequire) Reflect.deleteProperty(globalThis, 'require');
  }
}

/** Loads the parser (once; later calls share the first load). */
export function shellParser(): Promise<ShSyntax> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** Whether the parser has been loaded in this process (for start-up tests). */
export function shellParserLoaded(): boolean {
  return loaded !== undefined;
}

function parseMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'Error' in error && typeof error.Error === 'function') {
    const text: unknown = error.Error();
    if (typeof text === 'string') return text;
  }
  if (error instanceof RangeError) return 'nested too deeply';
  return error instanceof Error ? error.message : String(error);
}

/** Parses a bash command line; a syntax error (or input too deep to parse) is an error result. */
export function parseWith(syntax: ShSyntax, source: string): ParseResult {
  try {
    // A fresh parser per call: a parser that threw part-way keeps no state around.
    const parser = syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash));
    return { ok: true, file: parser.Parse(source, '') };
  } catch (error) {
    return { ok: false, error: parseMessage(error) };
  }
}

/** Every node below `root` (root included), in source order. */
export function allNodes(syntax: ShSyntax, root: ShNode): ShNode[] {
  const out: ShNode[] = [];
  try {
    syntax.Walk(root, (node) => {
      if (node) out.push(node);
      return true;
    });
  } catch {
    // A walk that fails part-way still returns what it saw.
  }
  return out;
}

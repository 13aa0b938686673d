/**
 * The part of mvdan/sh's syntax tree (https://pkg.go.dev/mvdan.cc/sh/v3/syntax)
 * the permission check reads, as the `mvdan-sh` package exposes it: Go structs
 * with their Go field names, `null` for nil. Node kinds are told apart with
 * `syntax.NodeType(node)`, which returns the Go type name ("CallExpr", "Lit", …).
 */

export interface ShPos {
  /** Byte offset in the UTF-8 source. */
  Offset(): number;
}

export interface ShNode {
  Pos(): ShPos;
  End(): ShPos;
}

export interface ShFile extends ShNode {
  Stmts: ShStmt[] | null;
}

export interface ShStmt extends ShNode {
  Cmd: ShNode | null;
  Redirs: ShRedirect[] | null;
}

export interface ShRedirect extends ShNode {
  OpPos: ShPos;
  N: ShLit | null;
  Word: ShWord | null;
  Hdoc: ShWord | null;
}

export interface ShWord extends ShNode {
  Parts: ShNode[] | null;
}

export interface ShLit extends ShNode {
  Value: string;
}

export interface ShSglQuoted extends ShNode {
  Dollar: boolean;
  Value: string;
}

export interface ShDblQuoted extends ShNode {
  Dollar: boolean;
  Parts: ShNode[] | null;
}

export interface ShParamExp extends ShNode {
  Short: boolean;
  Excl: boolean;
  Length: boolean;
  Width: boolean;
  Param: ShLit | null;
  Index: ShNode | null;
  Slice: object | null;
  Repl: object | null;
  Names: number;
  Exp: object | null;
}

export interface ShStmts extends ShNode {
  Stmts: ShStmt[] | null;
}

export interface ShCallExpr extends ShNode {
  Assigns: ShAssign[] | null;
  Args: ShWord[] | null;
}

export interface ShAssign extends ShNode {
  Append: boolean;
  Naked: boolean;
  Name: ShLit | null;
  Index: ShNode | null;
  Value: ShWord | null;
  Array: ShNode | null;
}

export interface ShBinaryCmd extends ShNode {
  X: ShStmt;
  Y: ShStmt;
}

export interface ShIfClause extends ShNode {
  Cond: ShStmt[] | null;
  Then: ShStmt[] | null;
  Else: ShIfClause | null;
}

export interface ShWhileClause extends ShNode {
  Cond: ShStmt[] | null;
  Do: ShStmt[] | null;
}

export interface ShForClause extends ShNode {
  Loop: ShNode;
  Do: ShStmt[] | null;
}

export interface ShWordIter extends ShNode {
  Items: ShWord[] | null;
}

export interface ShCaseClause extends ShNode {
  Word: ShWord;
  Items: Array<{ Patterns: ShWord[] | null; Stmts: ShStmt[] | null }> | null;
}

export interface ShFuncDecl extends ShNode {
  Body: ShStmt;
}

export interface ShStmtHolder extends ShNode {
  Stmt: ShStmt | null;
}

export interface ShParser {
  Parse(source: string, name: string): ShFile;
}

type ParserOption = { readonly __parserOption: unique symbol };

/** The `syntax` namespace of the `mvdan-sh` package. */
export interface ShSyntax {
  NewParser(...options: ParserOption[]): ShParser;
  KeepComments(keep: boolean): ParserOption;
  Variant(lang: number): ParserOption;
  LangBash: number;
  NodeType(node: ShNode): string;
  Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
}

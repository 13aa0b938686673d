declare module 'mvdan-sh' {
  const sh: { syntax: import('./ast.js').ShSyntax };
  export default sh;
}

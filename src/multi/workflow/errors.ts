/** Errors of workflow definitions and runs, each naming where and how to fix. */

export interface DefinitionProblem {
  /** The node at fault, when one is. */
  node?: string;
  /** The key at fault (`next`, `routes.ok`, `state.files`). */
  key?: string;
  message: string;
  /** What to change, as an instruction. */
  fix?: string;
  line?: number;
}

/** A workflow file that cannot run: every problem found, one per line, each naming the file and node. */
export class WorkflowDefinitionError extends Error {
  constructor(
    readonly file: string,
    readonly problems: DefinitionProblem[],
  ) {
    super(problems.map((p) => problemLine(file, p)).join('\n'));
    this.name = 'WorkflowDefinitionError';
  }
}

export function problemLine(file: string, p: DefinitionProblem): string {
  const where = `${file}${p.line === undefined ? '' : `:${p.line}`}`;
  const node = p.node === undefined ? '' : `node "${p.node}": `;
  const key = p.key === undefined ? '' : `${p.key}: `;
  const stop = /[.?!]$/.test(p.message) ? '' : '.';
  return `${where}: ${node}${key}${p.message}${p.fix ? `${stop} Fix: ${p.fix}` : ''}`;
}

/** A run that cannot start or go on (not found, held by another process, finished…). */
export class WorkflowRunError extends Error {
  constructor(
    message: string,
    readonly code: 'not_found' | 'busy' | 'finished' | 'invalid' | 'changed' = 'invalid',
  ) {
    super(message);
    this.name = 'WorkflowRunError';
  }
}

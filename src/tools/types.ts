import type { z } from 'zod';
import type { ImagePart } from '../llm/types.js';

/** What a tool may need to know about where and for whom it runs. */
export interface ToolContext {
  /** The workspace root; file tools resolve relative paths against it. */
  cwd: string;
  /** Extra directories file tools may touch besides `cwd` (from config or flags). */
  allowedRoots?: string[];
  sessionId: string;
  callId: string;
  /** Aborted when the user cancels; long-running tools must stop promptly. */
  signal: AbortSignal;
}

/** A tool's answer. A plain string is shorthand for `{ output }`. */
export interface ToolResult {
  output: string;
  isError?: boolean;
  images?: ImagePart[];
}

export type ToolReturn = string | ToolResult;

export type ApprovalClass = 'none' | 'write' | 'exec' | 'network';

export interface Tool<P extends z.ZodType = z.ZodType> {
  name: string;
  /** One or two sentences the model reads to decide when to call this tool. */
  description: string;
  parameters: P;
  category: string;
  keywords?: string[];
  /** Does not change anything outside the process. */
  readOnly: boolean;
  /** May run at the same time as other concurrency-safe tools. */
  concurrencySafe: boolean;
  approval: ApprovalClass;
  /** Default per-call time limit in milliseconds. */
  timeoutMs?: number;
  execute(args: z.infer<P>, ctx: ToolContext): Promise<ToolReturn>;
}

/**
 * Thrown by a tool for an expected failure. The loop turns it into a model-readable
 * `[ERROR] message` followed by the hint.
 */
export class ToolError extends Error {
  readonly hint: string | undefined;
  constructor(message: string, hint?: string) {
    super(message);
    this.name = 'ToolError';
    this.hint = hint;
  }
}

/** Identity helper that keeps the parameter type attached to `execute`. */
export function defineTool<P extends z.ZodType>(tool: Tool<P>): Tool<P> {
  return tool;
}

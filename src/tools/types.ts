import type { z } from 'zod';
import type { ImagePart, ModelRequest, Usage } from '../llm/types.js';

/** What a tool may need to know about where and for whom it runs. */
export interface ToolContext {
  /** The workspace root; file tools resolve relative paths against it. */
  cwd: string;
  /** Extra directories file tools may touch besides `cwd` (from config or flags). */
  allowedRoots?: readonly string[];
  /**
   * Directories file tools may read, list and search but never change (the folders of
   * the skills offered to the session).
   */
  readRoots?: readonly string[];
  sessionId: string;
  callId: string;
  /** Aborted when the user cancels; long-running tools must stop promptly. */
  signal: AbortSignal;
  /** Where the runner saves the full text of outputs it truncated. */
  outputDir?: string;
  /** The session side of a tool run (absent when a tool runs bare, e.g. in tests). */
  host?: ToolHost;
  /**
   * A client's view of the file system (an editor's unsaved buffers, over ACP). File
   * tools read and write text files through it when present; absent: the local disk.
   */
  fs?: ClientFs;
  /**
   * A client's terminal (an editor's, over ACP): bash runs its command there, after the
   * permission check, so the user sees it live. Absent: bash runs it here.
   */
  shell?: ClientShell;
  /**
   * The permission policy in force, for tools that decide more than whether they run:
   * the shell sandbox asks it whether a command may reach the network. Absent: the
   * tool's own default (no network).
   */
  permissions?: PermissionView;
  /**
   * The tools the calling session sees (its own overlay over the shared registry, see
   * tools/registry.ts); the runner sets it. Absent: a tool that lists tools uses the
   * registry it was built with.
   */
  tools?: ToolSet;
  /**
   * Reports how far a long call has come (`tea mcp serve` sends it to a client that
   * asked for progress). Absent: nobody listens.
   */
  progress?: (update: ToolProgress) => void;
  /** A log line about the call for whoever runs it (an MCP client's notifications/message). */
  log?: (level: ToolLogLevel, message: string) => void;
  /**
   * Asks the user to fill in a form (`schema`: a flat JSON Schema object; over MCP, the
   * client's elicitation/create). Absent: nobody can be asked here.
   */
  elicit?: (request: ElicitRequest) => Promise<ElicitAnswer>;
  /** Asks the caller's model for a completion (over MCP, the client's sampling/createMessage). */
  sample?: (request: SampleRequest) => Promise<SampleAnswer>;
}

export interface ElicitRequest {
  message: string;
  schema: Record<string, unknown>;
}

export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

export interface SampleRequest {
  prompt: string;
  maxTokens: number;
  systemPrompt?: string;
}

export interface SampleAnswer {
  text: string;
  model: string;
}

/** One progress report: `progress` grows with each report; `total` when known. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** The syslog levels MCP logging uses, least severe first. */
export const TOOL_LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type ToolLogLevel = (typeof TOOL_LOG_LEVELS)[number];

/** A read-only view of a tool registry (`ToolRegistry` and its overlays implement it). */
export interface ToolSet {
  /** What is known of a tool without loading it (see `ToolInfo`). */
  get(name: string): ToolInfo | undefined;
  has(name: string): boolean;
  list(): ToolInfo[];
  names(): string[];
  /** The tool itself, its code loaded on first use (undefined: no such tool; rejects when it cannot be loaded). */
  load(name: string): Promise<Tool | undefined>;
  /** The `n` names closest to `name`, best first. */
  closest(name: string, n?: number): string[];
  /** Connects tool sources whose tools are not listed yet (MCP servers without a cached list). */
  discover(): Promise<void>;
}

/** What tools may ask of the permission policy (PermissionPolicy implements it). */
export interface PermissionView {
  decide(call: CallFacts): Promise<{ action: 'allow' | 'ask' | 'deny'; reason: string }>;
}

/** What the permission policy judges of one tool call. */
export interface CallFacts {
  tool: string;
  approval: ApprovalClass;
  /** What the call acts on (command, path, URL), when the tool declares it. */
  subject?: string;
  /** The subject is a bash command line: rules match each command in it. */
  shell?: boolean;
  /** The workspace and extra roots (where a shell redirection may write). */
  cwd?: string;
  roots?: readonly string[];
  /** The tool's category and read-only flag (faces show a call by them). */
  category?: string;
  readOnly?: boolean;
  /** The files the call names, resolved against the workspace (real paths), each inside the roots or not. */
  paths?: readonly CallPath[];
  /** For a shell line: each simple command in it, as rules match it (`describeCall` only). */
  commands?: readonly string[];
  /** The call reaches the network: a network tool, or a shell line naming a network program. */
  network?: boolean;
}

/** A file a call names: its real path, and whether it lies inside the workspace or an added root. */
export interface CallPath {
  path: string;
  inside: boolean;
}

/** Text-file access provided by a face's client (paths are absolute). */
export interface ClientFs {
  readTextFile(path: string, opts?: { line?: number; limit?: number }): Promise<string>;
  writeTextFile(path: string, content: string): Promise<void>;
}

/**
 * Commands run by a face's client (an editor's terminal). One call runs one program to
 * its end; the caller has already passed the permission check and built the sandbox
 * launch, so the client runs exactly `command` with `args`.
 */
export interface ClientShell {
  run(req: ClientCommand): Promise<ClientCommandResult>;
}

export interface ClientCommand {
  /** The program (`bash`, or the sandbox launcher around `bash -c <line>`) and its arguments. */
  command: string;
  args: readonly string[];
  cwd: string;
  /** Variables to set on top of the client's environment ('' blanks one the program must not see). */
  env: Readonly<Record<string, string>>;
  /** Bytes of output the client keeps (it drops the start past this). */
  outputByteLimit: number;
  /** The session and tool call it runs for: the client shows the terminal in that call. */
  sessionId: string;
  callId: string;
  /** Aborting it kills the command; `run` still resolves, with what it printed. */
  signal: AbortSignal;
  /**
   * Watch the output while it runs (for the deadline, which gives a busy command more
   * time): from `afterMs` on, look every `everyMs` and call `onOutput` when it changed.
   */
  watch?: { afterMs: number; everyMs: number; onOutput: () => void };
}

export interface ClientCommandResult {
  output: string;
  /** The client dropped the start of the output (past `outputByteLimit`). */
  truncated: boolean;
  exitCode: number | null;
  /** The signal that ended it, when it did not exit by itself. */
  signal: string | null;
}

export type PlanStatus = 'pending' | 'in_progress' | 'completed';

export interface PlanItem {
  id: string;
  content: string;
  status: PlanStatus;
}

/** One match of `ToolHost.searchHistory`. */
export interface HistoryHit {
  seq: number;
  role: string;
  turnId: string;
  /** The matching text, trimmed around the match. */
  snippet: string;
  /** For tool calls and results: the tool's name and the call id. */
  tool?: string;
  callId?: string;
}

/**
 * What the session offers to tools that need more than the file system: asking
 * the user, publishing a plan, searching the transcript, loading tool schemas.
 * The agent implements it and turns each call into events every face renders.
 */
export interface ToolHost {
  /** Asks the user; resolves with their answer (rejects when the turn is cancelled). */
  ask(question: string, options?: string[]): Promise<string>;
  /** Publishes and keeps the session's todo list (`kind: 'todo'`) or plan (`kind: 'plan'`). */
  plan(kind: 'todo' | 'plan', items: PlanItem[], title?: string): void;
  /** The todo list or plan as last published in this session. */
  currentPlan(kind: 'todo' | 'plan'): { items: PlanItem[]; title?: string };
  /** Searches this session's full stored transcript. */
  searchHistory(query: string, opts?: { limit?: number; tool?: string }): HistoryHit[];
  /** Reads back stored messages of this session by sequence number range. */
  readHistory(fromSeq: number, toSeq: number): HistoryHit[];
  /** Makes these tools' full schemas part of the next model call. */
  loadTools(names: string[]): void;
  /** Names of the tools whose schemas the model currently has. */
  loadedTools(): string[];
  /** A notice for the user (desktop notification or an event). */
  notify(title: string, body: string): void;
  /**
   * Runs `tool` — a stand-in for something a tool wants to do on the user's behalf
   * (an MCP server's sampling request) — through the permission policy and, when the
   * policy asks, the user (the same `approval_request` every face renders). Absent:
   * nobody can approve here.
   */
  authorize?(tool: Tool, args: Record<string, unknown>): Promise<HostPermit>;
  /**
   * One model call, without tools, on the session's model (an MCP server's sampling
   * request). The caller sets `maxOutputTokens`. Absent: no model here.
   */
  sample?(request: ModelRequest): Promise<HostSample>;
}

/** `ToolHost.authorize`'s answer: `output` says why when not allowed. */
export interface HostPermit {
  allowed: boolean;
  output: string;
}

/** `ToolHost.sample`'s answer. */
export interface HostSample {
  text: string;
  /** The model that answered. */
  model: string;
  finishReason: string;
  usage: Usage;
}

/** An audio clip in a tool result. */
export interface AudioPart {
  type: 'audio';
  /** `audio/wav`, `audio/mpeg`, … */
  mediaType: string;
  /** Base64. */
  data: string;
}

/** A resource embedded in a tool result: its URI and its contents, text or base64 `blob`. */
export type ResourcePart = { type: 'resource'; uri: string; mimeType?: string } & (
  | { text: string; blob?: undefined }
  | { blob: string; text?: undefined }
);

/** A tool's answer. A plain string is shorthand for `{ output }`. */
export interface ToolResult {
  output: string;
  isError?: boolean;
  images?: ImagePart[];
  /** Audio clips (base64), served as MCP audio content; the agent's model reads a note instead (result-parts.ts). */
  audio?: AudioPart[];
  /** Embedded resources, served as MCP resource content; the agent's model reads their text (result-parts.ts). */
  resources?: ResourcePart[];
  /**
   * The tool kept only part of a long output in `output` and wrote the whole of it to
   * this file (`savedOutputPath`); the runner then points the model there instead of
   * saving `output` itself.
   */
  savedOutput?: SavedOutput;
}

/** A long output a tool saved to a file itself (see `ToolResult.savedOutput`). */
export interface SavedOutput {
  path: string;
  /** Characters of output in all. */
  chars: number;
  /** False when the file holds only the start (a size limit stopped the saving). */
  complete: boolean;
  /** Bytes in the file. */
  bytes: number;
}

export type ToolReturn = string | ToolResult;

export type ApprovalClass = 'none' | 'write' | 'exec' | 'network';

/**
 * What the runtime knows of a tool before it runs: enough to offer it to a model (with
 * its JSON schema, see `ToolRegistry.specs`), list it, find it by intent, show a call
 * and decide whether calls may run in parallel. A built-in tool is known by these facts
 * (the catalogue, tools/builtin/catalogue.ts) until its first call loads its code.
 */
export interface ToolInfo {
  name: string;
  /** One or two sentences the model reads to decide when to call this tool. */
  description: string;
  category: string;
  keywords?: string[];
  /** Does not change anything outside the process. */
  readOnly: boolean;
  /** May run at the same time as other concurrency-safe tools. */
  concurrencySafe: boolean;
  approval: ApprovalClass;
  /** Default per-call time limit in milliseconds. */
  timeoutMs?: number;
  /**
   * The subject is a bash command line. Permission rules then match each command
   * in it (after parsing), never the line as a whole.
   */
  shell?: boolean;
}

/** A tool: its facts, its argument schema and its code. */
export interface Tool<P extends z.ZodType = z.ZodType> extends ToolInfo {
  parameters: P;
  /**
   * A raw JSON Schema for the arguments (MCP tools bring these instead of zod). When
   * set, it is what the model sees, and `parameters` should be a permissive
   * `z.looseObject({})` so arguments pass through to the tool unchanged.
   */
  inputSchema?: Record<string, unknown>;
  /**
   * What permission rules match against for this call: the command for exec tools,
   * the (workspace-relative) path for file tools, the URL for network tools.
   * Tools without one are matched by name only.
   */
  subject?(args: z.infer<P>): string;
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

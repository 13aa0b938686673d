import { TokenCalibrator } from '../context/tokens.js';
import type { Provider } from '../llm/types.js';
import type { LongTermMemory } from '../memory/api.js';
import type { Store } from '../store/index.js';
import { catalogBlock, type ToolLoading } from '../tools/loading.js';
import type { PermissionMode, PermissionRule } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import { toModelMessages } from './history.js';
import { DEFAULT_LEASE, type LeaseSettings } from './lease.js';
import { memoryScopes } from './memory-jobs.js';
import { memoryTool } from './memory-tool.js';
import { defaultSystemPrompt } from './prompt.js';
import { Session, type SessionDeps, type SessionOptions } from './session.js';

/** The default deadline of one prompt. */
export const DEFAULT_TURN_TIMEOUT_MS = 60 * 60 * 1000;

export interface AgentOptions {
  provider: Provider;
  tools: ToolRegistry;
  store: Store;
  /** Workspace for new sessions; resumed sessions keep their own. */
  cwd: string;
  systemPrompt?: string;
  /** Model calls per turn before the loop stops (default 25). */
  maxIterations?: number;
  /** Concurrency-safe tools run at most this many at once (default 4). */
  maxParallelTools?: number;
  maxOutputChars?: number;
  /** Directories besides the workspace that file tools may use. */
  allowedRoots?: string[];
  /** Default approvals per tool class (default 'ask'). */
  permissionMode?: PermissionMode;
  /** Ordered rules on top of the mode; the last match wins. */
  permissionRules?: readonly PermissionRule[];
  /** 'ask' (default) when a face answers approvals and questions; 'deny' when nobody can. */
  approvals?: 'ask' | 'deny';
  /** 'intent' (default): core tools + tool_search; 'all': every schema on every request. */
  toolLoading?: ToolLoading;
  /** Where truncated tool outputs are saved in full (per session subfolder). */
  toolOutputRoot?: string;
  /** Tea's data home: `<home>/AGENTS.md` is a global instruction file. */
  home?: string;
  /** The cheap model for background summaries and titles (none run without it). */
  cheapProvider?: Provider;
  /** Name new sessions on the cheap model after their first turn (default true). */
  titles?: boolean;
  /** Token-estimate calibration to start from (e.g. loaded from disk); a fresh one otherwise. */
  calibrator?: TokenCalibrator;
  /** Long-term memory: recalled into every turn, and the `memory` tool. */
  memory?: LongTermMemory;
  /**
   * With memory and a cheap model: extract memories after each turn (default true),
   * and tune priorities / reflect now and then (default true).
   */
  memoryJobs?: { extract?: boolean; tune?: boolean };
  /**
   * One runner per session across processes: a turn waits up to `waitMs` (default
   * 60 s; 0 refuses at once) while another runner holds the session.
   */
  lease?: Partial<LeaseSettings>;
  /** The deadline of one prompt (its turn and the follow-ups queued meanwhile); default one hour. */
  turnTimeoutMs?: number;
}

/**
 * The tools one session sees: an overlay of the agent's registry (`tools.overlay()`)
 * holding tools for that session alone (an editor's MCP servers); default: the
 * agent's registry.
 */
export interface SessionTools {
  tools?: ToolRegistry;
}

/** Creates and resumes sessions that share one provider, tool registry and store. */
export class Agent {
  /** Token-estimate calibration per model, shared by the agent's sessions. */
  readonly calibrator: TokenCalibrator;

  constructor(private readonly opts: AgentOptions) {
    this.calibrator = opts.calibrator ?? new TokenCalibrator();
    if (opts.memory && !opts.tools.has('memory')) {
      opts.tools.register(memoryTool(opts.memory, memoryScopes));
    }
  }

  /** A new session in `cwd` (default: the agent's workspace). */
  newSession(opts: { title?: string; cwd?: string } & SessionOptions & SessionTools = {}): Session {
    const row = this.opts.store.sessions.create({
      cwd: opts.cwd ?? this.opts.cwd,
      title: opts.title,
      model: this.opts.provider.info.model,
      profile: this.opts.provider.info.profile,
    });
    return new Session(this.deps(row.cwd, opts.tools), row, [], {
      ...(opts.fs ? { fs: opts.fs } : {}),
      storedCount: 0,
    });
  }

  /** Reopens a stored session by id or unique prefix with its full transcript. */
  resumeSession(idOrPrefix: string, opts: SessionOptions & SessionTools = {}): Session {
    const { tools, ...rest } = opts;
    const row = this.opts.store.sessions.resolve(idOrPrefix);
    const rows = this.opts.store.messages.list(row.id);
    return new Session(this.deps(row.cwd, tools), row, toModelMessages(rows), {
      ...rest,
      storedCount: rows.length,
    });
  }

  private deps(cwd: string, sessionTools: ToolRegistry | undefined): SessionDeps {
    const tools = sessionTools ?? this.opts.tools;
    return {
      provider: this.opts.provider,
      tools,
      store: this.opts.store,
      systemPrompt: this.systemPrompt(cwd, tools),
      maxIterations: this.opts.maxIterations ?? 25,
      maxParallelTools: this.opts.maxParallelTools ?? 4,
      maxOutputChars: this.opts.maxOutputChars,
      allowedRoots: this.opts.allowedRoots,
      permissionMode: this.opts.permissionMode ?? 'ask',
      permissionRules: this.opts.permissionRules ?? [],
      approvals: this.opts.approvals ?? 'ask',
      toolLoading: this.opts.toolLoading ?? 'intent',
      toolOutputRoot: this.opts.toolOutputRoot,
      calibrator: this.calibrator,
      ...(this.opts.home ? { home: this.opts.home } : {}),
      ...(this.opts.cheapProvider ? { cheapProvider: this.opts.cheapProvider } : {}),
      titles: this.opts.titles ?? true,
      ...(this.opts.memory ? { memory: this.opts.memory } : {}),
      memoryJobs: {
        extract: this.opts.memoryJobs?.extract ?? true,
        tune: this.opts.memoryJobs?.tune ?? true,
      },
      lease: { ...DEFAULT_LEASE, ...this.opts.lease },
      turnTimeoutMs: this.opts.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS,
    };
  }

  private systemPrompt(cwd: string, tools: ToolRegistry): string {
    const mode = this.opts.permissionMode ?? 'ask';
    const base = `${this.opts.systemPrompt ?? defaultSystemPrompt({ cwd })}\nPermission mode: ${mode}${MODE_NOTE[mode]}`;
    if ((this.opts.toolLoading ?? 'intent') === 'all') return base;
    const catalog = catalogBlock(tools);
    return catalog ? `${base}\n\n${catalog}` : base;
  }
}

const MODE_NOTE: Record<PermissionMode, string> = {
  'read-only': ' (only reads run; do not try to change files or run commands)',
  ask: ' (writes, commands and network calls need the user’s approval)',
  'auto-edit': ' (workspace edits run; commands and network calls need approval)',
  yolo: ' (every tool runs without asking: be careful)',
};

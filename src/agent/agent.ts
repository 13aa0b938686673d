import type { Provider } from '../llm/types.js';
import type { Store } from '../store/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { toModelMessages } from './history.js';
import { defaultSystemPrompt } from './prompt.js';
import { Session, type SessionDeps } from './session.js';

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
  allowedRoots?: string[];
}

/** Creates and resumes sessions that share one provider, tool registry and store. */
export class Agent {
  constructor(private readonly opts: AgentOptions) {}

  newSession(opts: { title?: string } = {}): Session {
    const row = this.opts.store.sessions.create({
      cwd: this.opts.cwd,
      title: opts.title,
      model: this.opts.provider.info.model,
      profile: this.opts.provider.info.profile,
    });
    return new Session(this.deps(row.cwd), row, []);
  }

  /** Reopens a stored session by id or unique prefix with its full transcript. */
  resumeSession(idOrPrefix: string): Session {
    const row = this.opts.store.sessions.resolve(idOrPrefix);
    const history = toModelMessages(this.opts.store.messages.list(row.id));
    return new Session(this.deps(row.cwd), row, history);
  }

  private deps(cwd: string): SessionDeps {
    return {
      provider: this.opts.provider,
      tools: this.opts.tools,
      store: this.opts.store,
      systemPrompt: this.opts.systemPrompt ?? defaultSystemPrompt({ cwd }),
      maxIterations: this.opts.maxIterations ?? 25,
      maxParallelTools: this.opts.maxParallelTools ?? 4,
      maxOutputChars: this.opts.maxOutputChars,
      allowedRoots: this.opts.allowedRoots,
    };
  }
}

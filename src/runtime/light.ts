/**
 * The light ways into the data home, for commands that need no agent (`tea
 * memory`, `tea sessions`): the config, then the sessions or the memory service
 * with its embedder, and a memory judge that loads the model client only when a
 * judgement is actually needed. Kept apart from runtime.ts so these commands start fast.
 */
// Direct imports (not the config index) keep the YAML printer out of the start-up path.
import { loadConfig } from '../config/load.js';
import type { ProfileConfig, TeaConfig } from '../config/types.js';
import type { IngestJudge } from '../memory/judge.js';
import { MemoryService } from '../memory/service.js';
import { closeDatabase, openDatabase, Store } from '../store/index.js';
import { defaultDbPath } from '../store/paths.js';
import { workspaceDir } from './directories.js';
import { embedderFor } from './embedder.js';
import { RuntimeError } from './errors.js';
import { SessionsService } from './sessions.js';

/** The configuration, without probing for a local model server; its warnings go to stderr. */
async function loadLight(cwd?: string): Promise<TeaConfig> {
  const config = await loadConfig({ cwd: workspaceDir(cwd), detectOllama: false });
  // An untrusted project's embedding or judge settings are ignored here too: say so.
  for (const warning of config.warnings) process.stderr.write(`tea: warning: ${warning}\n`);
  return config;
}

export interface OpenSessions {
  config: TeaConfig;
  /** Listing, reading, renaming and deleting; `create` and `open` need a full runtime. */
  sessions: SessionsService;
  close(): void;
}

/** The stored sessions, without touching any model. */
export async function openSessions(cwd?: string): Promise<OpenSessions> {
  const config = await loadLight(cwd);
  const store = Store.open(defaultDbPath(config.home), { backup: {} });
  const sessions = new SessionsService({
    store: () => store,
    agentFor: () => {
      throw new RuntimeError('usage', 'running a session needs the full runtime (createRuntime)');
    },
    hasProfile: () => false,
  });
  return { config, sessions, close: () => store.close() };
}

/** The profile that judges memory ingest: the cheap model, else the main one; none when off. */
export function judgeProfile(config: TeaConfig): ProfileConfig | undefined {
  if (!config.memory.judge) return undefined;
  return config.cheapModel ?? config.mainModel;
}

/** How long `tea memory add` waits for the judge before deciding without it. */
export const CLI_JUDGE_TIMEOUT_MS = 10_000;

/**
 * A judge on `profile` whose model client is built on its first judgement: no
 * retries (a command waits for it), and a note on stderr when it cannot help.
 */
export function lazyJudge(config: TeaConfig, profile: ProfileConfig): IngestJudge {
  let inner: Promise<IngestJudge> | undefined;
  const build = async (): Promise<IngestJudge> => {
    const [{ createModelChain }, { chainOptions }, { modelJudge }] = await Promise.all([
      import('../llm/factory.js'),
      import('../agent/settings.js'),
      import('../memory/judge.js'),
    ]);
    const chain = createModelChain([profile], { ...chainOptions(config, { cheap: true }), maxRetries: 0 });
    return modelJudge(chain, {
      timeoutMs: CLI_JUDGE_TIMEOUT_MS,
      onFailure: (why) =>
        process.stderr.write(
          `tea: the memory judge (${profile.model}) could not decide (${why}); decided without it\n`,
        ),
    });
  };
  return {
    async judge(input, signal) {
      inner ??= build();
      return (await inner).judge(input, signal);
    },
  };
}

export interface OpenMemory {
  config: TeaConfig;
  memory: MemoryService;
  /** The model that judges close pairs at ingest, when there is one. */
  judgeModel: string | undefined;
  close(): void;
}

/**
 * The database and a memory service; `offline` leaves the judge out. The
 * database is opened without the session repositories of a `Store` (which
 * prepare their statements up front, ~2 ms that memory commands never use).
 */
export async function openMemory(opts: { offline?: boolean; cwd?: string } = {}): Promise<OpenMemory> {
  const config = await loadLight(opts.cwd);
  const db = openDatabase(defaultDbPath(config.home), { backup: {} });
  const profile = opts.offline ? undefined : judgeProfile(config);
  const memory = new MemoryService({
    db,
    embedder: embedderFor(config),
    ...(profile ? { judge: lazyJudge(config, profile) } : {}),
  });
  return {
    config,
    memory,
    judgeModel: profile?.model,
    // After the daily backup, when one is due.
    close: () => {
      closeDatabase(db);
    },
  };
}

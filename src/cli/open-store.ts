/**
 * The light way into the data home for subcommands that need no agent (`tea
 * memory`, `tea sessions`): the config, the store, the memory service with its
 * embedder, and a memory judge that loads the model client only when a judgement
 * is actually needed. Kept apart from runtime.ts so these commands start fast.
 */
import path from 'node:path';
import type Database from 'better-sqlite3';
// Direct imports (not the config index) keep the YAML printer out of the start-up path.
import { loadConfig } from '../config/load.js';
import type { ProfileConfig, TeaConfig } from '../config/types.js';
import { OfflineEmbedder, RemoteEmbedder } from '../memory/embed.js';
import type { IngestJudge } from '../memory/judge.js';
import { MemoryService } from '../memory/service.js';
import type { Embedder } from '../memory/types.js';
import { openDatabase, Store } from '../store/index.js';
import { defaultDbPath } from '../store/paths.js';
import { existingDir } from './usage.js';

/** Resolves the workspace directory from --cwd (relative to the process cwd); a usage error when it does not exist. */
export function workspaceDir(cwd: string | undefined): string {
  return cwd === undefined ? path.resolve(process.cwd()) : existingDir('--cwd', cwd);
}

/** The configuration, without probing for a local model server. */
async function loadLight(cwd?: string): Promise<TeaConfig> {
  const config = await loadConfig({ cwd: workspaceDir(cwd), detectOllama: false });
  // An untrusted project's embedding or judge settings are ignored here too: say so.
  for (const warning of config.warnings) process.stderr.write(`tea: warning: ${warning}\n`);
  return config;
}

/** Opens the store from the configured home without touching any model. */
export async function openStore(cwd?: string): Promise<{ config: TeaConfig; store: Store }> {
  const config = await loadLight(cwd);
  return { config, store: Store.open(defaultDbPath(config.home), { backup: {} }) };
}

/** The configured remote embedder, or the built-in offline one. */
export function embedderFor(config: TeaConfig): Embedder {
  const e = config.embedding;
  if (!e) return new OfflineEmbedder();
  return new RemoteEmbedder({
    baseUrl: e.baseUrl,
    model: e.model,
    ...(e.apiKey ? { apiKey: e.apiKey } : {}),
    ...(e.dimensions ? { dimensions: e.dimensions } : {}),
    ...(e.headers ? { headers: e.headers } : {}),
    ...(e.timeoutMs ? { timeoutMs: e.timeoutMs } : {}),
  });
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
  /** The database (migrated); `close` closes it. */
  db: Database.Database;
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
export async function openMemory(opts: { offline?: boolean } = {}): Promise<OpenMemory> {
  const config = await loadLight();
  const db = openDatabase(defaultDbPath(config.home), { backup: {} });
  const profile = opts.offline ? undefined : judgeProfile(config);
  const memory = new MemoryService({
    db,
    embedder: embedderFor(config),
    ...(profile ? { judge: lazyJudge(config, profile) } : {}),
  });
  return {
    config,
    db,
    memory,
    judgeModel: profile?.model,
    close: () => {
      if (db.open) db.close();
    },
  };
}

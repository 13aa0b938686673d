import type { TeaConfig } from '../config/types.js';
import { OfflineEmbedder, RemoteEmbedder } from '../memory/embed.js';
import type { Embedder } from '../memory/types.js';

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

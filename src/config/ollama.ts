/** Finding a local Ollama to use as the main model when nothing else configures one. */
import { envValue } from './env.js';

export const DEFAULT_OLLAMA_URL = 'http://127.0.0.1:11434';
export const DEFAULT_OLLAMA_TIMEOUT_MS = 300;

/**
 * The Ollama root URL: `OLLAMA_HOST` when set, else the default. Like Ollama
 * itself, a host without a scheme gets `http://` and port 11434 (unless it names
 * one), and the wildcard address means this machine.
 */
export function ollamaUrl(env: NodeJS.ProcessEnv): string {
  const host = envValue(env, 'OLLAMA_HOST');
  if (!host) return DEFAULT_OLLAMA_URL;
  const hasScheme = /^https?:\/\//.test(host);
  try {
    const url = new URL(hasScheme ? host : `http://${host}`);
    if (!hasScheme && !/^(?:\[[^\]]*\]|[^/:]*):\d+/.test(host)) url.port = '11434';
    if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
    return url.origin;
  } catch {
    return DEFAULT_OLLAMA_URL;
  }
}

export interface DetectedOllama {
  /** The OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Chat models it serves (embedding models left out), in its order. */
  models: string[];
}

function modelNames(body: unknown): string[] {
  if (body === null || typeof body !== 'object') return [];
  const list = (body as { models?: unknown }).models;
  if (!Array.isArray(list)) return [];
  const names: string[] = [];
  for (const entry of list) {
    if (entry === null || typeof entry !== 'object') continue;
    const { name, model } = entry as { name?: unknown; model?: unknown };
    const id = typeof name === 'string' ? name : typeof model === 'string' ? model : undefined;
    if (id && !id.toLowerCase().includes('embed')) names.push(id);
  }
  return names;
}

/**
 * Asks `GET /api/tags` with a short timeout. Undefined when nothing answers, the
 * answer is not Ollama's, or it times out; never throws.
 */
export async function detectOllama(
  env: NodeJS.ProcessEnv,
  timeoutMs = DEFAULT_OLLAMA_TIMEOUT_MS,
): Promise<DetectedOllama | undefined> {
  const root = ollamaUrl(env);
  try {
    const res = await fetch(`${root}/api/tags`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    const body: unknown = await res.json();
    if (body === null || typeof body !== 'object' || !('models' in body)) return undefined;
    return { baseUrl: `${root}/v1`, models: modelNames(body) };
  } catch {
    return undefined;
  }
}

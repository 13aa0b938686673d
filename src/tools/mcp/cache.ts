/**
 * Each server's tool list, saved in `<home>/mcp/<server>.json` after every successful
 * connection, so start-up can offer MCP tools without starting any server.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { McpToolInfo } from './types.js';

interface CacheFile {
  server: string;
  savedAt: string;
  tools: McpToolInfo[];
}

export function cacheFile(home: string, server: string): string {
  return path.join(home, 'mcp', `${server}.json`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keeps only well-formed entries: a damaged file costs at most its bad entries. */
function toolInfo(value: unknown): McpToolInfo | undefined {
  if (!isRecord(value) || typeof value.name !== 'string' || value.name.length === 0) return undefined;
  const info: McpToolInfo = {
    name: value.name,
    inputSchema: isRecord(value.inputSchema) ? value.inputSchema : { type: 'object' },
  };
  if (typeof value.description === 'string') info.description = value.description;
  if (isRecord(value.annotations)) info.annotations = value.annotations as McpToolInfo['annotations'];
  return info;
}

/** The cached tool list of `server`, or undefined when there is none (or it is unreadable). */
export function readToolCache(home: string, server: string): McpToolInfo[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(cacheFile(home, server), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.tools)) return undefined;
  return parsed.tools.map(toolInfo).filter((t): t is McpToolInfo => t !== undefined);
}

/** Saves the tool list (written beside and renamed, so a reader never sees half a file). */
export function writeToolCache(home: string, server: string, tools: readonly McpToolInfo[]): void {
  const file = cacheFile(home, server);
  mkdirSync(path.dirname(file), { recursive: true });
  const body: CacheFile = { server, savedAt: new Date().toISOString(), tools: [...tools] };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(body, null, 2)}\n`);
  renameSync(tmp, file);
}

/**
 * The `server` section (`tea serve`): extra host names the server answers to.
 * Only the user's own file may add one: a name is a way in (a DNS name an attacker
 * controls would let a web page reach the server), so a project file's are ignored.
 */
import { resolve } from 'node:path';
import { displayPath } from './errors.js';

/** One allowed Host: a lower-case name (IPv6 in brackets) and, when given, the only port it may carry. */
export interface HostEntry {
  name: string;
  port?: number;
}

export interface ServerSettings {
  /** Extra Host values `tea serve` accepts (`name` or `name:port`), besides its own address. */
  allowedHosts: string[];
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DNS_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV6_BRACKETED = /^\[[0-9a-f:.]+\]$/;

/** True for a canonical decimal port 1–65535 (no sign, no leading zero). */
export function isPort(text: string): boolean {
  return /^[1-9]\d{0,4}$/.test(text) && Number(text) <= 65535;
}

/**
 * Parses `name`, `name:port`, `1.2.3.4[:port]` or `[v6][:port]` (case-insensitive),
 * or returns undefined. No scheme, path, trailing dot or wildcard.
 */
export function parseHostEntry(text: string): HostEntry | undefined {
  const value = text.trim().toLowerCase();
  const m = /^(\[[^\]]*\]|[^:[\]]+)(?::([^:]*))?$/.exec(value);
  if (!m?.[1]) return undefined;
  const name = m[1];
  if (!(DNS_NAME.test(name) || IPV4.test(name) || IPV6_BRACKETED.test(name))) return undefined;
  if (m[2] === undefined) return { name };
  return isPort(m[2]) ? { name, port: Number(m[2]) } : undefined;
}

export const HOST_ENTRY_HINT = {
  expected: 'a host name, optionally with :port (no scheme or path)',
  fix: 'write the name the browser shows, e.g. `allowed_hosts: [tea.example.com, "my-box.local:8080"]`.',
} as const;

interface FromFile<T> {
  value: T;
  file: string;
}

/** `server.allowed_hosts` of every file, in file order. */
export type ServerLayer = { allowedHosts: Array<FromFile<string[]>> };

export function emptyServerLayer(): ServerLayer {
  return { allowedHosts: [] };
}

export function mergeServerLayers(base: ServerLayer, over: ServerLayer): ServerLayer {
  return { allowedHosts: [...base.allowedHosts, ...over.allowedHosts] };
}

/** The effective section: the user's own names; another file's are ignored with a warning. */
export function finaliseServer(
  layer: ServerLayer,
  userFile: string,
): { server: ServerSettings; warnings: string[] } {
  const warnings: string[] = [];
  const allowedHosts: string[] = [];
  for (const entry of layer.allowedHosts) {
    if (resolve(entry.file) !== resolve(userFile)) {
      warnings.push(
        `${displayPath(entry.file)}: server.allowed_hosts ignored: only your own config may let tea serve answer to other names`,
      );
      continue;
    }
    for (const host of entry.value) {
      const lower = host.trim().toLowerCase();
      if (!allowedHosts.includes(lower)) allowedHosts.push(lower);
    }
  }
  return { server: { allowedHosts }, warnings };
}

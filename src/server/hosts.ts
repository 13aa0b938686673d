/**
 * Which `Host` values the server answers to (DNS-rebinding protection). A page on a
 * rebinding domain reaches us with its own name in `Host`, so only our own names
 * pass: the loopback names with the bound port, the bound address itself, and the
 * names the user configured (`server.allowed_hosts`, `--allowed-host`).
 */
import { isIPv4, isIPv6 } from 'node:net';
import { type HostEntry, isPort, parseHostEntry } from '../config/server.js';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** `host` as it appears in a URL: lower case, IPv6 in brackets. */
function urlName(host: string): string {
  const h = host.trim().toLowerCase();
  return isIPv6(h) ? `[${h}]` : h;
}

/** An IP literal as a Host name carries (rebinding needs a DNS name, so these are always safe). */
function isIpLiteral(name: string): boolean {
  if (isIPv4(name)) return true;
  return name.startsWith('[') && name.endsWith(']') && isIPv6(name.slice(1, -1));
}

export class HostPolicy {
  private readonly extra: HostEntry[];
  private bound: { name: string; port: number; wildcard: boolean } | undefined;

  /**
   * `extra`: configured entries, `name` (any port) or `name:port`; invalid ones throw.
   * `configFile`: the user's config file, where `server.allowed_hosts` goes (named in errors).
   */
  constructor(
    extra: readonly string[] = [],
    readonly configFile?: string,
  ) {
    this.extra = extra.map((text) => {
      const entry = parseHostEntry(text);
      if (!entry) throw new Error(`not a host name: ${JSON.stringify(text)} (expected name or name:port)`);
      return entry;
    });
  }

  /** Called once the socket listens: the bound address and the real port. */
  bind(host: string, port: number): void {
    const wildcard = WILDCARDS.has(host.trim());
    this.bound = { name: urlName(host), port, wildcard };
  }

  /** True when `header` (the raw Host header) names this server. */
  allows(header: string | undefined): boolean {
    if (header === undefined) return false;
    const m = /^(\[[^\]]*\]|[^:[\]]+)(?::(.*))?$/.exec(header.toLowerCase());
    if (!m?.[1]) return false;
    const name = m[1];
    const portText = m[2];
    if (portText !== undefined && !isPort(portText)) return false;
    const port = portText === undefined ? undefined : Number(portText);
    for (const entry of this.extra) {
      if (entry.name === name && (entry.port === undefined || entry.port === port)) return true;
    }
    const b = this.bound;
    if (!b) return false;
    // Browsers leave out the default port, so a server on 80 sees bare names.
    const ourPort = port === undefined ? b.port === 80 : port === b.port;
    if (!ourPort) return false;
    if (LOOPBACK_NAMES.includes(name) || name === b.name) return true;
    // Bound to every address: any IP literal of this machine may be used (a DNS name must be configured).
    return b.wildcard && isIpLiteral(name);
  }

  /** The accepted values, for error messages: `127.0.0.1:8080, localhost:8080, …`. */
  describe(): string {
    const out: string[] = [];
    const b = this.bound;
    if (b) {
      const names = [...LOOPBACK_NAMES];
      if (!b.wildcard && !names.includes(b.name)) names.push(b.name);
      for (const n of names) out.push(`${n}:${b.port}`);
      if (b.wildcard) out.push(`any IP address of this machine:${b.port}`);
    }
    for (const e of this.extra) out.push(e.port === undefined ? e.name : `${e.name}:${e.port}`);
    return out.join(', ');
  }
}

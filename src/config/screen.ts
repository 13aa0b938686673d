/**
 * What a project config file may set before the user trusts it.
 *
 * A project's `.tea/config.yaml` comes with a repository someone cloned, so until
 * the user runs `tea trust` it may only tune what the user already set up: model
 * names and context limits on the user's own endpoints, UI and memory preferences,
 * stricter permissions. It may not choose where requests go or with which
 * credentials, hand secrets to tools, start or reach MCP servers, or loosen any
 * permission. `screenProject` splits a validated file into the part that applies
 * and the list of restricted settings it holds.
 */
import type { Layer } from './layers.js';
import { screenModes } from './modes.js';
import type { RawEndpoint, RawFile, RawMcpServer } from './schema.js';
import { type PermissionModeName, STRICTNESS } from './sections.js';
import type { RestrictedSetting } from './types.js';

/**
 * Keys of an endpoint (`main_model`, `cheap_model`, `embedding`, `profiles.*`) that
 * choose where requests go or which credentials they carry.
 */
export const ENDPOINT_KEYS = [
  'provider',
  'base_url',
  'api_url',
  'api_key',
  'api_key_env',
  'headers',
] as const;

type EndpointKey = (typeof ENDPOINT_KEYS)[number];

/**
 * Control characters written visibly (`\x1b`), so that a value shown in the trust
 * prompt cannot move the cursor or rewrite the line to hide what it is.
 */
export function visible(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    out += control ? `\\x${code.toString(16).padStart(2, '0')}` : c;
  }
  return out;
}

/** A URL with any password in it hidden. */
function showUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '****';
    return url.toString();
  } catch {
    return value;
  }
}

function showEndpointValue(key: EndpointKey, raw: RawEndpoint): string {
  switch (key) {
    case 'base_url':
    case 'api_url':
      return showUrl(raw[key] ?? '');
    case 'api_key':
      return '(a key, hidden)';
    case 'headers':
      return `${Object.keys(raw.headers ?? {}).join(', ')} (values hidden)`;
    default:
      return String(raw[key]);
  }
}

/** The endpoint without its restricted keys; each one found is listed under `prefix`. */
function stripEndpoint<T extends RawEndpoint>(raw: T, prefix: string, out: RestrictedSetting[]): T {
  const kept = { ...raw };
  for (const key of ENDPOINT_KEYS) {
    if (raw[key] === undefined) continue;
    out.push({ key: `${prefix}.${key}`, value: showEndpointValue(key, raw) });
    delete kept[key];
  }
  return kept;
}

function describeEndpoint(raw: RawEndpoint): string {
  const where = raw.base_url ?? raw.api_url;
  const parts = [raw.model ?? raw.model_name, where ? `at ${showUrl(where)}` : undefined];
  const text = parts.filter(Boolean).join(' ');
  return text ? `a new endpoint: ${text}` : 'a new endpoint';
}

function describeServer(server: RawMcpServer): string {
  if (server.url !== undefined) return `connects to ${showUrl(server.url)}`;
  return `runs ${[server.command ?? '', ...(server.args ?? [])].join(' ')}`;
}

/** The mode the trusted files leave in force (the default is `ask`). */
function trustedMode(trusted: Layer): PermissionModeName {
  return trusted.sections.modes.at(-1)?.value ?? 'ask';
}

/**
 * Splits an untrusted project file (`raw`, already validated) into what applies
 * (`kept`) and the restricted settings it holds. `trusted` is the merged layer of
 * the trusted files (the user's own config): a project may tune an endpoint or
 * profile defined there, but not create one.
 */
export function screenProject(
  raw: RawFile,
  trusted: Layer,
): { kept: RawFile; restricted: RestrictedSetting[] } {
  const restricted: RestrictedSetting[] = [];
  const kept: RawFile = { ...raw };

  if (raw.main_model) kept.main_model = stripEndpoint(raw.main_model, 'main_model', restricted);
  if (raw.cheap_model) kept.cheap_model = stripEndpoint(raw.cheap_model, 'cheap_model', restricted);
  if (raw.embedding) {
    // Without an embedding of the user's own, this would turn on a remote embedder.
    if (trusted.embedding) kept.embedding = stripEndpoint(raw.embedding, 'embedding', restricted);
    else {
      restricted.push({ key: 'embedding', value: describeEndpoint(raw.embedding) });
      delete kept.embedding;
    }
  }

  const dropped = new Set<string>();
  if (raw.profiles) {
    const profiles: NonNullable<RawFile['profiles']> = {};
    for (const [name, profile] of Object.entries(raw.profiles)) {
      if (Object.hasOwn(trusted.profiles, name)) {
        profiles[name] = stripEndpoint(profile, `profiles.${name}`, restricted);
      } else {
        restricted.push({ key: `profiles.${name}`, value: describeEndpoint(profile) });
        dropped.add(name);
      }
    }
    kept.profiles = profiles;
  }
  if (raw.fallback) {
    // Profiles the project itself defined are gone; unknown names stay, to be reported as such.
    const names = raw.fallback.filter((name) => !dropped.has(name));
    if (names.length > 0) kept.fallback = names;
    else delete kept.fallback;
  }

  for (const [name, server] of Object.entries(raw.mcp_servers ?? {})) {
    restricted.push({ key: `mcp_servers.${name}`, value: describeServer(server) });
  }
  delete kept.mcp_servers;

  if (raw.permissions) {
    const permissions = { ...raw.permissions };
    const mode = raw.permissions.mode;
    if (mode !== undefined && STRICTNESS[mode] < STRICTNESS[trustedMode(trusted)]) {
      restricted.push({ key: 'permissions.mode', value: mode });
      delete permissions.mode;
    }
    if (raw.permissions.rules) {
      permissions.rules = raw.permissions.rules.filter((rule, i) => {
        if (rule.action !== 'allow') return true;
        const what = [rule.action, rule.tool, rule.pattern].filter(Boolean).join(' ');
        restricted.push({ key: `permissions.rules[${i}]`, value: what });
        return false;
      });
    }
    if (raw.permissions.roots) {
      restricted.push({ key: 'permissions.roots', value: raw.permissions.roots.join(', ') });
      delete permissions.roots;
    }
    kept.permissions = permissions;
  }

  // A rule turns a prompt into a tool call: a cloned repository must not choose what a prompt runs.
  for (const [i, rule] of (raw.rules ?? []).entries()) {
    restricted.push({ key: `rules[${i}]`, value: `${rule.pattern} → ${rule.tool}` });
  }
  delete kept.rules;

  if (raw.tools) {
    const tools = { ...raw.tools };
    const envAllow = raw.tools.env_allow;
    // Narrowing the user's own list is fine; naming any other variable hands it to commands.
    const userAllow = trusted.sections.tools.envAllow ?? [];
    if (envAllow && !envAllow.every((name) => userAllow.includes(name))) {
      restricted.push({ key: 'tools.env_allow', value: envAllow.join(', ') });
      delete tools.env_allow;
    }
    if (raw.tools.web_search) {
      const ws = raw.tools.web_search;
      const value = [ws.provider, ws.url ? `at ${showUrl(ws.url)}` : '', ws.api_key_env ?? ''].filter(
        Boolean,
      );
      restricted.push({ key: 'tools.web_search', value: value.join(' ') });
      delete tools.web_search;
    }
    kept.tools = tools;
  }
  if (raw.modes || raw.default_mode !== undefined) {
    delete kept.modes;
    delete kept.default_mode;
    Object.assign(kept, screenModes(raw, trustedMode(trusted), restricted));
  }
  return { kept, restricted: restricted.map((s) => ({ key: visible(s.key), value: visible(s.value) })) };
}

/**
 * The `permissions` and `tools` sections: layered like the rest, with one rule
 * for safety — an untrusted file (a project's, checked into a repository someone
 * cloned) may make Tea stricter, never looser. screen.ts drops its `allow` rules,
 * extra roots and looser modes before merging (one warning names them all); the
 * checks here stand behind that.
 */
import { resolve } from 'node:path';
import { displayPath } from './errors.js';
import type { RawPermissions, RawTools } from './schema.js';

export type PermissionModeName = 'read-only' | 'ask' | 'auto-edit' | 'yolo';
export type RuleActionName = 'allow' | 'ask' | 'deny';

export interface ConfigRule {
  tool: string;
  pattern?: string;
  action: RuleActionName;
}

export interface WebSearchSettings {
  provider: 'searxng' | 'brave' | 'tavily';
  url?: string;
  apiKey?: string;
}

export interface PermissionsConfig {
  mode: PermissionModeName;
  rules: ConfigRule[];
  /** Directories besides the workspace that file tools may use (absolute). */
  roots: string[];
}

export interface ToolsConfig {
  loading: 'intent' | 'all';
  maxOutputChars: number;
  envAllow: string[];
  webSearch?: WebSearchSettings;
}

interface FromFile<T> {
  value: T;
  file: string;
}

export interface SectionsLayer {
  /** Every file's mode, in file order (a project file's may be ignored). */
  modes: Array<FromFile<PermissionModeName>>;
  rules: Array<FromFile<ConfigRule>>;
  roots: Array<FromFile<string>>;
  tools: {
    loading?: 'intent' | 'all';
    maxOutputChars?: number;
    envAllow?: string[];
    webSearch?: FromFile<{
      provider: WebSearchSettings['provider'];
      url?: string;
      apiKey?: string;
      apiKeyEnv?: string;
    }>;
  };
}

export function emptySections(): SectionsLayer {
  return { modes: [], rules: [], roots: [], tools: {} };
}

export function toSections(
  permissions: RawPermissions | undefined,
  tools: RawTools | undefined,
  file: string,
): SectionsLayer {
  const layer = emptySections();
  if (permissions?.mode) layer.modes.push({ value: permissions.mode, file });
  for (const r of permissions?.rules ?? []) {
    layer.rules.push({
      value: r.pattern
        ? { tool: r.tool, pattern: r.pattern, action: r.action }
        : { tool: r.tool, action: r.action },
      file,
    });
  }
  for (const root of permissions?.roots ?? []) layer.roots.push({ value: root, file });
  if (tools?.loading) layer.tools.loading = tools.loading;
  if (tools?.max_output_chars) layer.tools.maxOutputChars = tools.max_output_chars;
  if (tools?.env_allow) layer.tools.envAllow = tools.env_allow;
  const ws = tools?.web_search;
  if (ws) {
    layer.tools.webSearch = {
      value: {
        provider: ws.provider,
        ...(ws.url ? { url: ws.url } : {}),
        ...(ws.api_key ? { apiKey: ws.api_key } : {}),
        ...(ws.api_key_env ? { apiKeyEnv: ws.api_key_env } : {}),
      },
      file,
    };
  }
  return layer;
}

/** Rules and roots accumulate (later files after earlier ones); scalars are replaced. */
export function mergeSections(base: SectionsLayer, over: SectionsLayer): SectionsLayer {
  return {
    modes: [...base.modes, ...over.modes],
    rules: [...base.rules, ...over.rules],
    roots: [...base.roots, ...over.roots],
    tools: { ...base.tools, ...over.tools },
  };
}

/** Higher is stricter. */
export const STRICTNESS: Record<PermissionModeName, number> = {
  'read-only': 3,
  ask: 2,
  'auto-edit': 1,
  yolo: 0,
};

/** The effective sections; files `trusted` accepts may loosen, any other file only restricts. */
export function finaliseSections(
  layer: SectionsLayer,
  trusted: (file: string) => boolean,
  env: NodeJS.ProcessEnv,
): { permissions: PermissionsConfig; tools: ToolsConfig; warnings: string[] } {
  const warnings: string[] = [];
  let mode: PermissionModeName = 'ask';
  for (const m of layer.modes) {
    if (trusted(m.file) || STRICTNESS[m.value] >= STRICTNESS[mode]) mode = m.value;
    else
      warnings.push(
        `${displayPath(m.file)}: permissions.mode ${m.value} ignored: a project file may only make Tea stricter`,
      );
  }
  const rules: ConfigRule[] = [];
  for (const r of layer.rules) {
    if (r.value.action === 'allow' && !trusted(r.file)) {
      warnings.push(
        `${displayPath(r.file)}: allow rule for ${r.value.tool} ignored: a project file may only add ask/deny rules`,
      );
    } else {
      rules.push(r.value);
    }
  }
  const roots: string[] = [];
  for (const r of layer.roots) {
    if (trusted(r.file)) roots.push(resolve(r.value.replace(/^~(?=$|\/)/, env.HOME ?? '~')));
    else
      warnings.push(`${displayPath(r.file)}: permissions.roots ignored: only your own config may add roots`);
  }
  const ws = layer.tools.webSearch?.value;
  const apiKey = ws?.apiKey ?? (ws?.apiKeyEnv ? env[ws.apiKeyEnv] : undefined);
  const tools: ToolsConfig = {
    loading: layer.tools.loading ?? 'intent',
    maxOutputChars: layer.tools.maxOutputChars ?? 30_000,
    envAllow: layer.tools.envAllow ?? [],
    ...(ws
      ? {
          webSearch: {
            provider: ws.provider,
            ...(ws.url ? { url: ws.url } : {}),
            ...(apiKey ? { apiKey } : {}),
          },
        }
      : {}),
  };
  return { permissions: { mode, rules, roots }, tools, warnings };
}

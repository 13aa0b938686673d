/**
 * What Tea itself was configured with that programs it starts must not see: the
 * names of the variables holding its keys and tokens, and the secret values
 * themselves (so a copy under another name is caught too). The env scrub of the
 * shell tools drops both (tools/builtin/env-scrub.ts).
 */
import type { TeaConfig } from './types.js';

/** Read by Tea from the environment whether or not a file names them. */
const ALWAYS: readonly string[] = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'TEA_API_TOKEN', 'TEA_MCP_TOKEN'];

export interface ConfiguredSecrets {
  /** Variable names: `api_key_env` of every profile and the embedding, MCP server env names, tokens. */
  names: string[];
  /** Secret values: API keys, header values (and their bearer tokens). */
  values: string[];
}

function headerValues(headers: Record<string, string> | undefined): string[] {
  return Object.values(headers ?? {}).flatMap((value) => {
    const token = /^(Bearer|Basic|Token)\s+(\S+)$/i.exec(value.trim())?.[2];
    return token ? [value, token] : [value];
  });
}

export function configuredSecrets(config: TeaConfig): ConfiguredSecrets {
  const names = new Set<string>(ALWAYS);
  const values = new Set<string>();
  for (const source of Object.values(config.keySources ?? {})) {
    if (source.kind === 'env') names.add(source.variable);
  }
  const profiles = [config.mainModel, config.cheapModel, ...Object.values(config.profiles)];
  for (const profile of profiles) {
    if (profile?.apiKey) values.add(profile.apiKey);
    for (const value of headerValues(profile?.headers)) values.add(value);
  }
  if (config.embedding?.apiKey) values.add(config.embedding.apiKey);
  for (const value of headerValues(config.embedding?.headers)) values.add(value);
  if (config.tools.webSearch?.apiKey) values.add(config.tools.webSearch.apiKey);
  for (const server of Object.values(config.mcpServers)) {
    if ('command' in server) for (const name of Object.keys(server.env ?? {})) names.add(name);
    else {
      for (const value of headerValues(server.headers)) values.add(value);
      if (server.oauth !== false && server.oauth?.clientSecret) values.add(server.oauth.clientSecret);
    }
  }
  return { names: [...names], values: [...values].filter((v) => v.trim() !== '') };
}

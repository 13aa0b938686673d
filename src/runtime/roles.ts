/**
 * The sub-agent roles of a runtime: the built-ins, and role files from the project's
 * and the user's folders. With no such folder (most runs) the file parser is not loaded.
 */
import { existsSync } from 'node:fs';
import type { RoleLike, RoleSource } from '../multi/role-like.js';
import { BUILTIN_ROLES } from '../multi/roles/builtin.js';
import { roleDirs } from '../multi/roles/dirs.js';

export interface RolesInput {
  home: string;
  cwd: string;
  /** Profile names (a Claude Code model alias naming one is kept). */
  profiles: readonly string[];
  /** Tools besides the built-ins a role may list (MCP tools, user tools). */
  knownTools: readonly string[];
  warn(message: string): void;
}

function sourceOf(roles: readonly RoleLike[]): RoleSource {
  const byName = new Map(roles.map((r) => [r.name, r]));
  return { get: (name) => byName.get(name), list: () => [...byName.values()] };
}

export async function runtimeRoles(input: RolesInput): Promise<RoleSource> {
  const opts = { home: input.home, cwd: input.cwd };
  if (!roleDirs(opts).some((dir) => existsSync(dir))) return sourceOf(BUILTIN_ROLES);
  const { loadRoles } = await import('../multi/roles/load.js');
  const set = await loadRoles({ ...opts, profiles: input.profiles, knownTools: input.knownTools });
  for (const w of set.warnings) input.warn(w);
  return set;
}

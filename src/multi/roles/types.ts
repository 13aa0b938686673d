/** The shape of a sub-agent role, as built-ins and role files declare it. */
import type { PermissionMode } from '../../tools/permissions.js';

export interface Role {
  /** Lower-case `[a-z0-9][a-z0-9_-]*`, at most 64 characters. */
  name: string;
  /** When to use this role (the parent model reads it). */
  description: string;
  /** The Markdown body: the child's role instructions. */
  prompt: string;
  /**
   * Tea tool names the child may use; undefined = the parent's tools. Claude Code names
   * in a role file are already mapped to tea's here.
   */
  tools?: string[];
  /**
   * Tools the child may not use, for a role whose `tools` is undefined (a Claude Code
   * `disallowedTools` list, mapped). When the role lists `tools`, these are already
   * removed from that list and this field is absent.
   */
  disallowedTools?: string[];
  /** A tea profile name or a model id; undefined = the parent's model. */
  model?: string;
  /**
   * A Claude Code model alias (`sonnet`, `opus`, `haiku`) the file asked for while no
   * tea profile of that name was known: `model` is then undefined (the parent's).
   */
  modelAlias?: string;
  /** Model calls per child turn. */
  maxTurns?: number;
  /** A ceiling: the child never gets more than its parent. */
  permissionMode?: PermissionMode;
  /** JSON Schema of the final answer (structured output). */
  outputSchema?: Record<string, unknown>;
  /** Also offered to the model as its own tool (agent-as-tool). */
  asTool?: boolean;
  /** `'builtin'` or the file path it came from. */
  source: string;
}

export interface RoleSet {
  get(name: string): Role | undefined;
  /** Every role, sorted by name. */
  list(): Role[];
  /** Files skipped or partly ignored, each naming the file, the key and the fix. */
  warnings: string[];
}

export interface LoadRolesOptions {
  /** The Tea home (`~/.tea`): its `agents/` folder holds the user's roles. */
  home: string;
  /** The workspace: its `.tea/agents/` and `.claude/agents/` hold the project's roles. */
  cwd: string;
  /** The Claude Code home (default `~/.claude`): its `agents/` folder is read last. */
  claudeHome?: string;
  /**
   * Names of tea model profiles: a Claude Code alias (`sonnet`…) that names one is kept
   * as the role's `model`; otherwise it falls back to the parent's model with a warning.
   */
  profiles?: readonly string[];
  /** More tool names a role may list (user tools, agent tools), beyond the built-ins. */
  knownTools?: readonly string[];
}

export const ROLE_NAME = /^[a-z0-9][a-z0-9_-]*$/;
export const ROLE_NAME_MAX = 64;

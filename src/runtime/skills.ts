/**
 * Skills in the runtime: the evolve layer's skills hook (the `## Skills` block of L0,
 * the `skill` tool, the skills' folders readable by the file tools) and the skills
 * service the faces use. A workspace with no skill folder costs a few `existsSync`
 * calls per prompt and loads no skill code; with skills, the folders are scanned once
 * and checked by their stamps before each prompt (evolve/skills/catalog.ts).
 */
import { existsSync } from 'node:fs';
import type { SkillsOffer } from '../agent/evolve-hooks.js';
import { teaHome } from '../config/files.js';
import type { SkillCatalog } from '../evolve/skills/catalog.js';
import { skillDirs } from '../evolve/skills/dirs.js';
import type { SkillsError } from '../evolve/skills/errors.js';
import type { SkillOffers } from '../evolve/skills/offer.js';
import { registerSkillTool } from '../evolve/skills/register.js';
import type { SkillsService } from '../evolve/skills/service.js';
import type { ToolNameMapper } from '../evolve/skills/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { workspaceDir } from './directories.js';

export type { SkillsError, SkillsErrorCode } from '../evolve/skills/errors.js';
export type { AcceptResult, DraftDetail, DraftView } from '../evolve/skills/inbox.js';
export type { RemoveResult, SkillsService } from '../evolve/skills/service.js';
export type { DirView, ShadowedView, SkillDetail, SkillListing, SkillView } from '../evolve/skills/views.js';

export interface SkillsSetup {
  home: string;
  cwd: string;
  /** Where other agents keep the user's skills (`~/.agents`, `~/.claude`); default the OS's home. */
  userHome?: string;
  tools: ToolRegistry;
  warn(message: string): void;
}

export interface RuntimeSkills {
  /** The evolve layer's skills hook. */
  hook(input: string, cwd: string): Promise<string | SkillsOffer>;
  /** The service `tea serve` and library users manage skills with (built on first use). */
  service(): Promise<SkillsService>;
}

/**
 * `allowed-tools` entries as tea's tools: `Bash(git:*)` as Bash, a Claude Code name as
 * its closest tea twin (the first the role loader maps it to: Bash → bash, Read →
 * read_file), a tea or MCP name as it is; an unknown name maps to nothing.
 */
async function toolMapper(): Promise<ToolNameMapper> {
  const { resolveTool } = await import('../multi/roles/tool-names.js');
  const none = new Set<string>();
  return (entry) => {
    const head = /^([A-Za-z][\w-]*)\s*\(.*\)$/s.exec(entry.trim())?.[1] ?? entry.trim();
    const resolved = resolveTool(head, none);
    return resolved.ok ? resolved.tools.slice(0, 1) : [];
  };
}

export function runtimeSkills(setup: SkillsSetup): RuntimeSkills {
  const { home, userHome, tools } = setup;
  let mapper: Promise<ToolNameMapper> | undefined;
  let catalog: Promise<SkillCatalog> | undefined;
  let offers: Promise<SkillOffers> | undefined;
  const map = (): Promise<ToolNameMapper> => {
    mapper ??= toolMapper();
    return mapper;
  };
  const cat = (): Promise<SkillCatalog> => {
    catalog ??= Promise.all([import('../evolve/skills/catalog.js'), map()]).then(
      ([{ SkillCatalog }, m]) => new SkillCatalog({ home, ...(userHome ? { userHome } : {}), map: m }),
    );
    return catalog;
  };
  const anyDir = (cwd: string): boolean =>
    skillDirs({ home, cwd, ...(userHome ? { userHome } : {}) }).some((d) => existsSync(d.dir));
  // Known before the first request (and to `--allow skill`) when the workspace has skill folders.
  if (anyDir(setup.cwd)) registerSkillTool(tools, cat, map);
  return {
    async hook(input, cwd) {
      if (!anyDir(cwd)) return '';
      registerSkillTool(tools, cat, map);
      offers ??= Promise.all([import('../evolve/skills/offer.js'), cat()]).then(
        ([{ SkillOffers }, c]) => new SkillOffers(c, setup.warn),
      );
      return (await offers).offer(input, cwd);
    },
    async service() {
      const [{ SkillsService }, c, m] = await Promise.all([
        import('../evolve/skills/service.js'),
        cat(),
        map(),
      ]);
      return new SkillsService({
        home,
        cwd: setup.cwd,
        ...(userHome ? { userHome } : {}),
        map: m,
        catalog: c,
      });
    },
  };
}

/** A refusal of the skills service (the faces map its code); checked by name so the class loads only with the service. */
export function isSkillsError(e: unknown): e is SkillsError {
  return e instanceof Error && e.name === 'SkillsError';
}

/** The skills service for `tea skills`: the Tea home and the workspace are all it needs (no config, no model). */
export async function openSkills(opts: { cwd?: string; userHome?: string } = {}): Promise<SkillsService> {
  const [{ SkillsService }, map] = await Promise.all([import('../evolve/skills/service.js'), toolMapper()]);
  const cwd = workspaceDir(opts.cwd);
  return new SkillsService({
    home: teaHome(),
    cwd,
    ...(opts.userHome ? { userHome: opts.userHome } : {}),
    map,
  });
}

import os from 'node:os';
import { catalogBlock } from '../tools/loading.js';
import type { PermissionMode } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { AgentSettings } from './settings.js';
import { modeLine, type WorkMode } from './work-modes.js';

export interface PromptEnv {
  cwd: string;
  now?: Date;
  /** The instruction part (a prompt version, `tea evolve prompts`); default: `BUILTIN_INSTRUCTIONS`. */
  instructions?: string;
}

/**
 * The instruction part of the default system prompt as Tea ships it: prompt version 1.
 * Another version replaces exactly this; the lines after it are always generated.
 */
export const BUILTIN_INSTRUCTIONS = [
  'You are Tea Agent, an AI agent working on the user’s machine.',
  'Plan briefly, act with tools, check the results, and keep going until the task is done.',
  'Read before you edit; make small exact edits; verify by running or reading.',
  'On an [ERROR] result, follow its hint instead of repeating the call.',
  'Never invent file contents, paths, URLs or results.',
  'Finish with a short answer: what you did and what the user should know.',
].join('\n');

/** The default system prompt: who the agent is and how it uses tools (`instructions`), where it works. */
export function defaultSystemPrompt(env: PromptEnv): string {
  const now = env.now ?? new Date();
  return [
    env.instructions ?? BUILTIN_INSTRUCTIONS,
    '',
    `Working directory: ${env.cwd}`,
    `Platform: ${os.platform()} ${os.release()} (${os.arch()})`,
    `Date: ${now.toISOString().slice(0, 10)}`,
  ].join('\n');
}

const MODE_NOTE: Record<PermissionMode, string> = {
  'read-only': ' (only reads run; do not try to change files or run commands)',
  ask: ' (writes, commands and network calls need the user’s approval)',
  'auto-edit': ' (workspace edits run; commands and network calls need approval)',
  yolo: ' (every tool runs without asking: be careful)',
};

/** What a top-level session adds: the permission mode now in force and its work mode. */
export interface SessionPromptMode {
  permissionMode?: PermissionMode;
  workMode?: WorkMode;
}

/**
 * A session's system prompt: the agent's (or the default one for `cwd`, with the
 * active prompt version's instructions), the runtime's note on its mode (when it has
 * one), the permission mode, the work mode's line (a top-level session's), and with
 * intent loading the catalogue of tools to search (`tools`: what the work mode offers).
 */
export function sessionSystemPrompt(
  settings: AgentSettings,
  cwd: string,
  tools: ToolRegistry,
  opts: SessionPromptMode = {},
): string {
  const mode = opts.permissionMode ?? settings.permissionMode;
  const { instructions } = settings;
  const note = settings.promptNote ? `\n${settings.promptNote}` : '';
  const work = opts.workMode ? `\n${modeLine(opts.workMode)}` : '';
  const base = `${settings.systemPrompt ?? defaultSystemPrompt({ cwd, ...(instructions ? { instructions } : {}) })}${note}\nPermission mode: ${mode}${MODE_NOTE[mode]}${work}`;
  if (settings.toolLoading === 'all') return base;
  const catalog = catalogBlock(tools, opts.workMode?.preload);
  return catalog ? `${base}\n\n${catalog}` : base;
}

/** The system prompt with a client's instructions for one turn (the Responses API's `instructions`) after it. */
export function withInstructions(system: string, instructions: string | undefined): string {
  return instructions ? `${system}\n\n# Instructions for this turn\n\n${instructions}` : system;
}

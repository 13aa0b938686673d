/**
 * What the self-evolution layer (src/evolve/) plugs into a session. The agent knows
 * only this interface; the runtime builds the hooks from evolve/ and hands them in
 * with the agent's services. Sub-agents and workflow steps get none of it: hooks run
 * for sessions a person started.
 */
import type { Message, ModelInfo, Provider, Usage } from '../llm/types.js';
import type { StopReason } from './events.js';

/** One finished prompt (with any follow-ups queued meanwhile), as the evolve layer sees it. */
export interface PromptRecord {
  sessionId: string;
  cwd: string;
  /** The user's words that started the prompt. */
  input: string;
  reason: StopReason;
  /** The final answer's text. */
  text: string;
  /** The messages this prompt added to the transcript (user, assistant with tool calls, tool results). */
  messages: readonly Message[];
  /** The user's previous prompt in this session and its record, when there was one (the reaction to it is `input`). */
  previousInput?: string;
}

/** What a background hook may use: the cheap model, a stop signal, and the usage ledger. */
export interface HookContext {
  cheap?: Provider;
  signal: AbortSignal;
  recordUsage(label: string, model: ModelInfo, usage: Usage): void;
}

/** What the skills hook offers one prompt. */
export interface SkillsOffer {
  /** The `## Skills` block of L0 ('' for none). */
  block: string;
  /** Tools offered with the block from the first request on (the `skill` tool), as if the model had loaded them. */
  tools?: readonly string[];
  /** Folders the file tools may read (never write) during this prompt: the offered skills' own. */
  readRoots?: readonly string[];
}

export interface EvolveHooks {
  /**
   * The skills offered for this input: the `## Skills` block of L0 (the installed
   * skills' names and descriptions, the best matches announced; a plain string is the
   * block alone), and what loading them needs. Must not throw.
   */
  skills?(input: string, cwd: string): Promise<string | SkillsOffer>;
  /** After a prompt ended (any reason), in the background. Failures are swallowed by the caller. */
  afterPrompt?(record: PromptRecord, ctx: HookContext): Promise<void>;
}

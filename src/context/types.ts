/**
 * Shapes of the context engine: what the pure builder receives (stored session
 * state, memories, skills, a budget) and what it returns (the messages of one
 * model call). No I/O happens in `src/context/` builders.
 */
import type { Message } from '../llm/types.js';

/** One completed older turn, condensed (L2). */
export interface HistoryPair {
  turnId: string;
  /** The user's message that opened the turn. */
  user: string;
  /** The assistant's final answer of the turn (no tool-call rounds). */
  assistant: string;
  /** The assistant's text and reasoning from the tool-call rounds, joined. */
  reasoning: string;
  /** Paths the turn's tools touched (read, wrote, edited). */
  files: string[];
}

/** L3: summaries kept per session. */
export interface Summaries {
  /** Background, changes made, decisions, errors fixed, constraints, preferences, open items. */
  semantic?: string;
  /** A review of earlier tool-call chains. */
  toolChain?: string;
}

/** Everything the builder needs, as data. */
export interface ContextInput {
  /** The base system prompt (with the tool catalog). Never trimmed. */
  system: string;
  /** Project instruction files (AGENTS.md …) and user messages marked as instructions. Never trimmed. */
  instructions: string[];
  /** Unfinished todo / plan, formatted, when there is one. */
  resume?: string;
  /** The injected long-term memories block (filled by the memory issue). */
  memories?: string;
  /** The injected skills block (filled by a later issue). */
  skills?: string;
  summaries: Summaries;
  /** Older completed turns, oldest first (L2 candidates). */
  pairs: HistoryPair[];
  /**
   * The recent turns as model messages, oldest first (L1). The last user message
   * is the new input. Tool results carry their call ids for placeholders.
   */
  recent: Message[];
}

export interface Budget {
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Tokens reserved for the answer. */
  maxOutput: number;
  /** Trim when the estimate exceeds this share of (window − output). Default 0.8. */
  trimAt?: number;
}

export type TrimStep =
  | 'drop-pairs'
  | 'placeholder-tool-output'
  | 'drop-tool-images'
  | 'drop-reasoning'
  | 'cut-long-text'
  | 'drop-old-turns'
  | 'cut-last-message';

/** The last message cut to fit (`cut-last-message`): its first and last characters kept. */
export interface LastMessageCut {
  /** `user` for the new input; `tool` for a tool result. */
  role: Message['role'];
  /** Characters of text it had. */
  chars: number;
  /** Characters kept: the first half of them from its start, the rest from its end. */
  kept: number;
  /** Its token estimate before the cut. */
  tokens: number;
}

export interface BuildResult {
  messages: Message[];
  /** The estimate of `messages` in tokens. */
  tokens: number;
  /** The estimate before any trim step. */
  tokensBefore: number;
  /** The budget the estimate was held to. */
  limit: number;
  /** Trim strategies that were applied, in order. */
  trimmed: TrimStep[];
  /** When the last message itself was cut to fit: how much of it the model sees. */
  cut?: LastMessageCut;
  /** L2 pairs included in full and as one-line digests. */
  pairsFull: number;
  pairsDigest: number;
}

/** Token estimate of one message (injected so the builder stays pure and testable). */
export type MessageEstimator = (message: Message) => number;

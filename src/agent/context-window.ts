/** Slices of a transcript that context building keeps raw (pure functions of the messages). */
import type { Message } from '../llm/types.js';

/** The transcript after its first `users` user messages (those a manual compaction summarized). */
export function afterCompaction(history: readonly Message[], users: number): readonly Message[] {
  if (users <= 0) return history;
  let seen = 0;
  for (let i = 0; i < history.length; i++) {
    if (history[i]!.role === 'user' && ++seen > users) return history.slice(i);
  }
  return [];
}

/** The raw transcript of the last `turns` user turns. */
export function recentWindow(history: readonly Message[], turns: number): Message[] {
  let seen = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i]!.role === 'user' && ++seen === turns) return history.slice(i);
  }
  return [...history];
}

/**
 * The memory block injected into the system prompt: an optional user profile,
 * then one line per selected memory with a prefix that tells the model how to
 * treat it (must follow, reminder, preference, fact, other).
 */
import type { Memory, Priority } from './types.js';

/** Profile text longer than this is cut, with a note saying so. */
export const PROFILE_MAX_CHARS = 1_500;

export const PRIORITY_NAMES: Record<Priority, string> = {
  0: 'CRITICAL',
  1: 'HIGH',
  2: 'MEDIUM',
  3: 'LOW',
};

/** The prefix for one memory; precedence: CRITICAL, reminder, preference, fact, other. */
export function memoryPrefix(memory: Memory): string {
  if (memory.priority === 0) return '!!! Must follow:';
  if (memory.category === 'reminder') return '⏰ Reminder:';
  if (memory.category === 'preference') return '💡 Preference:';
  if (memory.category === 'fact') return '📌 Fact:';
  return '📎';
}

/** UTC calendar date, e.g. `2025-03-14`. */
export function isoDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** One memory as one line (whitespace collapsed so a memory never spans lines). */
export function formatMemoryLine(memory: Memory): string {
  const content = memory.content.replace(/\s+/g, ' ').trim();
  const due =
    memory.category === 'reminder' && memory.expiresAt !== null ? ` (due ${isoDate(memory.expiresAt)})` : '';
  return `- ${memoryPrefix(memory)} ${content}${due}`;
}

/** Cuts `text` to at most `max` UTF-16 units without splitting a surrogate pair. */
function cut(text: string, max: number): string {
  let end = Math.min(max, text.length);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

function profileSection(profile: string): string {
  const text = profile.trim();
  if (text.length <= PROFILE_MAX_CHARS) return `## User profile\n${text}`;
  const kept = cut(text, PROFILE_MAX_CHARS).trimEnd();
  return `## User profile\n${kept}…\n(profile truncated: showing ${kept.length} of ${text.length} characters)`;
}

/**
 * Builds the injection block. CRITICAL memories come first; the others keep
 * the order given (the selector's score order). Nothing to say → ''.
 */
export function formatMemories(selected: Memory[], profile?: string): string {
  const sections: string[] = [];
  if (profile !== undefined && profile.trim() !== '') sections.push(profileSection(profile));
  const critical = selected.filter((m) => m.priority === 0);
  const rest = selected.filter((m) => m.priority !== 0);
  const lines = [...critical, ...rest].map(formatMemoryLine);
  if (lines.length > 0) sections.push(`## Memories\n${lines.join('\n')}`);
  return sections.join('\n\n');
}

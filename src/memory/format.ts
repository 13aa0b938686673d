/**
 * The memory block injected into the system prompt (under the "## Memories"
 * heading the context builder writes): an optional user profile, then one line
 * per selected memory with a prefix that tells the model how to treat it (must
 * follow, reminder, preference, fact, other), 📌 for pinned ones, and the
 * earlier versions of a fact with their dates.
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

/** Earlier versions shown after a memory, at most. */
export const VERSIONS_SHOWN = 2;
const VERSION_PREVIEW_CHARS = 100;

/** The prefix for one memory; precedence: CRITICAL, reminder, preference, fact, lesson, other. 📌 marks pinned ones. */
export function memoryPrefix(memory: Memory): string {
  const pin = memory.pinned ? '📌 ' : '';
  if (memory.priority === 0) return `${pin}!!! Must follow:`;
  if (memory.category === 'reminder') return `${pin}⏰ Reminder:`;
  if (memory.category === 'preference') return `${pin}💡 Preference:`;
  if (memory.category === 'fact') return `${pin}Fact:`;
  if (memory.category === 'lesson') return `${pin}⚠ Lesson:`;
  return pin === '' ? '📎' : '📌';
}

/** UTC calendar date, e.g. `2025-03-14`. */
export function isoDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** "(since 2025-03-01; earlier: "…" until 2025-03-01)" for a fact with earlier versions. */
function versionNote(memory: Memory, versions: readonly Memory[]): string {
  const earlier = versions.filter((v) => v.validFrom <= memory.validFrom).slice(0, VERSIONS_SHOWN);
  if (earlier.length === 0) return '';
  let newer = memory;
  const notes = earlier.map((v) => {
    const text = oneLine(v.content);
    const shown = text.length > VERSION_PREVIEW_CHARS ? `${text.slice(0, VERSION_PREVIEW_CHARS)}…` : text;
    const until = isoDate(v.validTo ?? newer.validFrom);
    newer = v;
    return `"${shown}" until ${until}`;
  });
  return ` (since ${isoDate(memory.validFrom)}; earlier: ${notes.join('; ')})`;
}

/** One memory as one line (whitespace collapsed so a memory never spans lines), with its earlier versions. */
export function formatMemoryLine(memory: Memory, versions: readonly Memory[] = []): string {
  const due =
    memory.category === 'reminder' && memory.expiresAt !== null ? ` (due ${isoDate(memory.expiresAt)})` : '';
  return `- ${memoryPrefix(memory)} ${oneLine(memory.content)}${due}${versionNote(memory, versions)}`;
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
  if (text.length <= PROFILE_MAX_CHARS) return `### User profile\n${text}`;
  const kept = cut(text, PROFILE_MAX_CHARS).trimEnd();
  return `### User profile\n${kept}…\n(profile truncated: showing ${kept.length} of ${text.length} characters)`;
}

/**
 * Builds the body of the memory block (the caller writes its "## Memories"
 * heading). CRITICAL memories come first; the others keep the order given (the
 * selector's score order). `versions` holds the earlier versions of a memory by
 * id. Nothing to say → ''.
 */
export function formatMemories(
  selected: Memory[],
  profile?: string,
  versions: ReadonlyMap<number, readonly Memory[]> = new Map(),
): string {
  const hasProfile = profile !== undefined && profile.trim() !== '';
  const critical = selected.filter((m) => m.priority === 0);
  const rest = selected.filter((m) => m.priority !== 0);
  const lines = [...critical, ...rest].map((m) => formatMemoryLine(m, versions.get(m.id)));
  const sections: string[] = [];
  if (hasProfile) sections.push(profileSection(profile));
  if (lines.length > 0) sections.push(`${hasProfile ? '### Remembered\n' : ''}${lines.join('\n')}`);
  return sections.join('\n\n');
}

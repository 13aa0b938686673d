/**
 * When a lesson (a memory of category `lesson`: what a failed task taught) belongs in a
 * turn's memories. Other memories compete on score, and with few stored every one of
 * them gets in; a lesson about database migrations in front of a question about the
 * weather is noise that reads like an instruction. So a lesson is a candidate only when
 * the prompt shares enough meaningful words with it (its text and tags, lightly stemmed
 * so "tests" meets "testing"; Chinese by character bigrams, as the word index has them).
 * Pure and cheap: lessons are few and short.
 */
import { queryTerms } from './segment.js';
import type { Memory } from './types.js';

/** Distinct meaningful words a prompt must share with a lesson (or all of a shorter prompt's). */
export const LESSON_MIN_SHARED = 2;

/** Words of nearly every request to an agent: sharing them ties nothing together. */
const GENERIC = new Set(
  (
    'please can could would make want need get use add help thing things something work task file files ' +
    'code new one now again also let lets like know see look show tell give try way sure thank thanks ok okay ' +
    '请 帮我 一下 可以 需要 这个 那个 一个 我们 你们 什么 怎么'
  ).split(' '),
);

const LATIN = /^[a-z0-9_.:-]+$/;

/** A light English stemmer: enough that "tests", "testing" and "tested" meet "test". */
export function stemWord(word: string): string {
  if (!LATIN.test(word) || word.length <= 4) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 5) return `${w.slice(0, -3)}y`;
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  else if (/(?:ss|us|is)$/.test(w)) return w;
  else if (/(?:ch|sh|x|z)es$/.test(w)) return w.slice(0, -2);
  else if (w.endsWith('s')) return w.slice(0, -1);
  // running → runn → run; stopped → stopp → stop.
  if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  return w;
}

/** The stemmed meaningful terms of `text` (generic request words and 1–2 letter words left out). */
export function lessonTerms(text: string): Set<string> {
  const out = new Set<string>();
  for (const term of queryTerms(text)) {
    if (GENERIC.has(term)) continue;
    if (LATIN.test(term) && term.length < 3) continue;
    out.add(stemWord(term));
  }
  return out;
}

/** Whether `lesson` is about what `query` asks: enough distinct terms in common. */
export function lessonRelevant(
  lesson: Pick<Memory, 'content' | 'tags'>,
  query: ReadonlySet<string>,
): boolean {
  if (query.size === 0) return false;
  const own = lessonTerms(`${lesson.content} ${lesson.tags.join(' ')}`);
  let shared = 0;
  for (const term of own) if (query.has(term)) shared += 1;
  return shared >= Math.min(LESSON_MIN_SHARED, query.size);
}

/** A filter for recall's candidates: every memory but the lessons `query` is not about. */
export function lessonGate(query: string): (memory: Memory) => boolean {
  let terms: Set<string> | undefined;
  return (memory) => {
    if (memory.category !== 'lesson') return true;
    terms ??= lessonTerms(query);
    return lessonRelevant(memory, terms);
  };
}

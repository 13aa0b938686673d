/**
 * "Did you mean …?" for a misspelt key or name. Kept apart from the schema so that
 * loading a config (which may suggest a profile name) does not load the validator.
 */
import { distance, closest as nearest } from 'fastest-levenshtein';

/** The known key closest to `unknown`, when it is close enough to be a likely typo. */
export function suggestKey(unknown: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const best = nearest(unknown.toLowerCase(), known);
  const limit = Math.max(2, Math.floor(best.length / 3));
  return distance(unknown.toLowerCase(), best) <= limit ? best : undefined;
}

/** The words of a snake_case or kebab-case name, sorted: `file_read` and `read-file` are alike. */
const partsOf = (name: string): string =>
  name
    .toLowerCase()
    .split(/[_\-\s]+/)
    .sort()
    .join(' ');

/**
 * The candidates closest to `word`, best first: by edit distance, the same words in
 * another order counting as a near match. `near` keeps only those within a third
 * of the word's length (at least 2 edits).
 */
export function closest(word: string, candidates: readonly string[], n = 3, near = true): string[] {
  const w = word.toLowerCase();
  const limit = Math.max(2, Math.floor(w.length / 3));
  return candidates
    .map((c) => {
      const lc = c.toLowerCase();
      const reordered = w.includes('_') && partsOf(w) === partsOf(lc);
      return { c, d: reordered ? 0 : distance(w, lc) - (lc.startsWith(w) ? 1 : 0) };
    })
    .filter((x) => !near || x.d <= limit)
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, n)
    .map((x) => x.c);
}

/** `; did you mean x?`, or the closest ones when none is near. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const near = closest(word, candidates);
  if (near.length > 0) return `; did you mean ${near.join(' or ')}?`;
  const far = closest(word, candidates, 3, false);
  return far.length > 0 ? `; the closest are ${far.join(', ')}` : '';
}

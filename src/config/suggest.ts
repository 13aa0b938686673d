/**
 * "Did you mean …?" for a misspelt key or name. Kept apart from the schema so that
 * loading a config (which may suggest a profile name) does not load the validator.
 */
import { closest, distance } from 'fastest-levenshtein';

/** The known key closest to `unknown`, when it is close enough to be a likely typo. */
export function suggestKey(unknown: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const best = closest(unknown.toLowerCase(), known);
  const limit = Math.max(2, Math.floor(best.length / 3));
  return distance(unknown.toLowerCase(), best) <= limit ? best : undefined;
}

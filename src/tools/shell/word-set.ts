/** A set of the space-separated words (long word lists stay readable on a few lines). */
export function wordSet(text: string): Set<string> {
  return new Set(text.split(' '));
}

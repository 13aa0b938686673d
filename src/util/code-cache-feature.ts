/**
 * Names a part of the bundle this run loaded only when it was used (a tool family, the
 * memory service), for bin/code-cache.js: a code cache that lacks a part a run used is
 * written again with it (see `load` there). Costs a Set entry; does nothing outside the CLI.
 */
const KEY = Symbol.for('tea.codeCache.features');

export function usedFeature(name: string): void {
  const holder = globalThis as { [KEY]?: Set<string> };
  if (holder[KEY] === undefined) holder[KEY] = new Set();
  holder[KEY].add(name);
}

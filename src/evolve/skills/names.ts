/**
 * Skill names. The Agent Skills spec allows 1-64 lowercase letters, digits and
 * hyphens, not at either end and never two in a row. tea holds every name to that
 * (a name is a tool argument, a URL path segment and a folder name under the Tea
 * home, so nothing else may pass), but lets a skill whose folder is named otherwise
 * load under its frontmatter name with a note: skills copied between agents are often
 * renamed on the way, and the folder name matters to nobody but the file system.
 */

export const MAX_NAME = 64;
export const MAX_DESCRIPTION = 1024;
export const MAX_COMPATIBILITY = 500;

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Why `name` is not a valid skill name, or undefined when it is. */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'an empty name';
  if (name.length > MAX_NAME) return `${name.length} characters (at most ${MAX_NAME})`;
  if (name.includes('\0')) return 'a NUL character';
  if (/[A-Z]/.test(name) && NAME.test(name.toLowerCase())) return 'upper-case letters';
  if (!NAME.test(name)) {
    if (/^-|-$/.test(name)) return 'a hyphen at the start or end';
    if (name.includes('--')) return 'two hyphens in a row';
    return 'characters other than a-z, 0-9 and "-"';
  }
  return undefined;
}

export function isSkillName(name: string): boolean {
  return nameProblem(name) === undefined;
}

/** A valid name close to `raw` (lower case, other characters as hyphens), for a fix. */
export function suggestName(raw: string): string {
  const fixed = raw
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_NAME)
    .replace(/-+$/, '');
  return fixed || 'my-skill';
}

/** A name as a user or a request wrote it, shown safely in a message (quoted, cut short). */
export function shownName(raw: string): string {
  const cut = raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
  return JSON.stringify(cut);
}

/** What `tea skills` and the skills API refuse, with a code each face maps (exit code, HTTP status). */
import { nameProblem, shownName } from './names.js';

export type SkillsErrorCode =
  /** The name is not a valid skill name (400). */
  | 'invalid_name'
  | 'not_found'
  /** A skill of that name is installed already (409; `force` overrides). */
  | 'conflict'
  /** The skill is in another agent's folder (409; `force` overrides). */
  | 'not_owned'
  /** The draft or skill is not valid (or not a plain folder) and cannot be accepted (422). */
  | 'invalid_skill';

export class SkillsError extends Error {
  constructor(
    readonly code: SkillsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SkillsError';
  }
}

/** `name` when it is a valid skill name; a SkillsError naming what to fix otherwise. */
export function checkedName(name: string, what = 'skill'): string {
  const problem = nameProblem(name);
  if (problem !== undefined)
    throw new SkillsError(
      'invalid_name',
      `${shownName(name)} is not a ${what} name (${problem}): use 1-64 lower-case letters, digits and single hyphens`,
    );
  return name;
}

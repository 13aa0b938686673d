/**
 * Why a prompt-version operation did not happen. Faces tell the cases apart by `code`
 * (they import evolve/ only for types): `not_found` (no such version), `invalid` (bad
 * input: a version number, an empty text), `refused` (the guard said no; `problems`
 * says what to fix), `unchanged` (the text is the active one already), `no_material`
 * (evolve found nothing to learn from), `no_model` (evolve needs the cheap model).
 */
export type PromptErrorCode = 'not_found' | 'invalid' | 'refused' | 'unchanged' | 'no_material' | 'no_model';

export class PromptError extends Error {
  constructor(
    readonly code: PromptErrorCode,
    message: string,
    /** The guard's findings, for `refused`. */
    readonly problems: readonly string[] = [],
  ) {
    super(message);
    this.name = 'PromptError';
  }
}

/** `problems` as one refusal message: what was refused, then each finding. */
export function refusal(what: string, problems: readonly string[]): PromptError {
  return new PromptError('refused', `${what} was refused: ${problems.join('; ')}`, problems);
}

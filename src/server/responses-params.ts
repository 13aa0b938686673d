/** The Responses API's 400s: each names the parameter (`input.2.call_id`, `tools.0.name`). */
import type * as z from 'zod';
import { apiError } from './errors.js';

/** A 400 for parameter `param`. */
export function bad(param: string, message: string, code = 'invalid_value') {
  return apiError(400, message, { param, code });
}

/** A 400 for a parameter Tea does not take, and why. */
export function unsupported(param: string, why: string) {
  return bad(param, `${param} is not supported: ${why}`, 'unsupported_parameter');
}

/** `raw` checked against `schema`, its errors named under `param`. */
export function checked<S extends z.ZodType>(schema: S, raw: unknown, param: string): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = [param, ...issue.path.map(String)].join('.');
  throw bad(where, `${where}: ${issue.message}`);
}

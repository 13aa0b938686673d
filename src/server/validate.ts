/** Reading and validating request bodies, queries and path ids with zod, as 400s in the API error shape. */
import type { Context } from 'hono';
import type * as z from 'zod';
import { apiError, zodProblem } from './errors.js';
import { checkJsonDepth } from './json-depth.js';

/**
 * The request body as text; a 400 when it did not arrive whole (the client went away
 * or was too slow, so nobody reads the answer: no need to report it as a server error).
 */
export async function bodyText(c: Context): Promise<string> {
  try {
    return await c.req.text();
  } catch (e) {
    throw apiError(400, `the request body did not arrive whole: ${(e as Error).message}`, {
      code: 'body_incomplete',
    });
  }
}

/** Parses the JSON body and validates it; a bad body is a 400 naming the offending field. */
export async function readJson<S extends z.ZodType>(
  c: Context,
  schema: S,
  opts: { optional?: boolean } = {},
): Promise<z.infer<S>> {
  const text = await bodyText(c);
  if (text.trim() === '') {
    if (opts.optional) return validated(schema, {});
    throw apiError(400, 'request body is empty: expected a JSON object', { code: 'empty_body' });
  }
  checkJsonDepth(text);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw apiError(400, `request body is not valid JSON: ${(e as Error).message}`, { code: 'invalid_json' });
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw apiError(400, 'request body must be a JSON object', { code: 'invalid_json' });
  }
  return validated(schema, raw);
}

/** `raw` checked against `schema`; a 400 naming the first bad field otherwise. */
export function validated<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const { param, message } = zodProblem(parsed.error);
    throw apiError(400, message, { param, code: 'invalid_value' });
  }
  return parsed.data;
}

/** Validates the query string. */
export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) {
    const { param, message } = zodProblem(parsed.error, 'query');
    throw apiError(400, message, { param, code: 'invalid_value' });
  }
  return parsed.data;
}

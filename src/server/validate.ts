/** Reading and validating request bodies, queries and path ids with zod, as 400s in the API error shape. */
import type { Context } from 'hono';
import type * as z from 'zod';
import { yieldToEventLoop } from '../util/yield.js';
import { ApiError, apiError, zodProblem } from './errors.js';
import { DepthScanner, tooDeep } from './json-depth.js';

/**
 * The request body as text, decoded as its pieces arrive (no megabytes decoded in
 * one go on the event loop). With `scanner`, the pieces also go through it, and the
 * read stops with a 400 once the JSON nests too deep. A body that did not arrive
 * whole (the client went away or was too slow: nobody reads the answer) is a 400,
 * not a server error.
 */
export async function bodyText(c: Context, scanner?: DepthScanner): Promise<string> {
  const body = c.req.raw.body;
  if (!body) return '';
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  const reader = body.getReader();
  let sinceYield = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Pieces already buffered arrive without a pause: let others in every 256 KB.
      sinceYield += value.length;
      if (sinceYield > 256 * 1024) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
      if (scanner && !scanner.push(value)) {
        await reader.cancel().catch(() => undefined);
        throw tooDeep();
      }
      pieces.push(decoder.decode(value, { stream: true }));
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw apiError(400, `the request body did not arrive whole: ${(e as Error).message}`, {
      code: 'body_incomplete',
    });
  }
  pieces.push(decoder.decode());
  return pieces.join('');
}

/** Bodies longer than this yield to the event loop before and after parsing. */
const LARGE_BODY_CHARS = 256 * 1024;

/** Parses the JSON body and validates it; a bad body is a 400 naming the offending field. */
export async function readJson<S extends z.ZodType>(
  c: Context,
  schema: S,
  opts: { optional?: boolean } = {},
): Promise<z.infer<S>> {
  const text = await bodyText(c, new DepthScanner());
  if (text.trim() === '') {
    if (opts.optional) return validated(schema, {});
    throw apiError(400, 'request body is empty: expected a JSON object', { code: 'empty_body' });
  }
  // Reading a large body was one long stretch and parsing it is another: others go between.
  if (text.length > LARGE_BODY_CHARS) await yieldToEventLoop();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw apiError(400, `request body is not valid JSON: ${(e as Error).message}`, { code: 'invalid_json' });
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw apiError(400, 'request body must be a JSON object', { code: 'invalid_json' });
  }
  const value = validated(schema, raw);
  if (text.length > LARGE_BODY_CHARS) await yieldToEventLoop();
  return value;
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

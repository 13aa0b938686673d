/**
 * Structured output on the Responses API: `text.format` (`json_schema` or
 * `json_object`) read into the agent's `ResponseFormat`, on the same core as chat
 * completions' `response_format` (the schema goes to the model, the final answer is
 * checked, one repair round, then `response_format_unmet`), and the `text` object the
 * response echoes. A shape Tea cannot take is a 400 naming `text.format.<key>`.
 */
import * as z from 'zod';
import type { ResponseFormat } from '../runtime/client-tools.js';
import { bad, checked, unsupported } from './responses-params.js';

/** The `text` object of a response, as OpenAI echoes it. */
export interface TextConfig {
  format:
    | { type: 'text' }
    | { type: 'json_object' }
    | {
        type: 'json_schema';
        name: string;
        schema: Record<string, unknown>;
        description: string | null;
        strict: boolean;
      };
}

/** The request's text settings: the format for the agent (none for plain text) and the echo. */
export interface ReadText {
  responseFormat?: ResponseFormat;
  echo: TextConfig;
}

const jsonSchema = z.strictObject({
  type: z.literal('json_schema'),
  name: z
    .string({ error: 'name is required: the name of the response format' })
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a format name is 1 to 64 letters, digits, underscores or dashes'),
  schema: z.record(z.string(), z.unknown(), {
    error: 'schema is required: a JSON Schema object the answer must match',
  }),
  description: z.string().nullish(),
  strict: z.boolean().nullish(),
});

const PLAIN: TextConfig = { format: { type: 'text' } };

/** `text` of a request: `format` (text, json_schema, json_object); any other key or shape is a 400 naming it. */
export function readText(text: Record<string, unknown> | null | undefined): ReadText {
  let read: ReadText = { echo: PLAIN };
  for (const [key, value] of Object.entries(text ?? {})) {
    if (value === null || value === undefined) continue;
    if (key === 'format') read = readFormat(value);
    else if (key === 'verbosity')
      throw unsupported('text.verbosity', 'Tea does not pass verbosity to its models');
    else throw bad(`text.${key}`, `unknown parameter: text.${key}`, 'unknown_parameter');
  }
  return read;
}

function readFormat(raw: unknown): ReadText {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw bad('text.format', 'text.format must be an object such as {"type":"json_schema",…}');
  const format = raw as Record<string, unknown>;
  const type = format.type;
  if (type === 'text' || type === 'json_object') {
    const extra = Object.keys(format).find((k) => k !== 'type' && format[k] !== null);
    if (extra !== undefined)
      throw bad(
        `text.format.${extra}`,
        `text.format.${extra}: a ${type} format takes no ${extra} (only json_schema has name, schema, description and strict)`,
        'unknown_parameter',
      );
    return type === 'text' ? { echo: PLAIN } : { responseFormat: { type }, echo: { format: { type } } };
  }
  if (type !== 'json_schema')
    throw bad(
      'text.format.type',
      `text.format.type must be "text", "json_schema" or "json_object", got ${JSON.stringify(type)}`,
    );
  const unknown = Object.keys(format).find((k) => !(k in jsonSchema.shape));
  if (unknown !== undefined)
    throw bad(`text.format.${unknown}`, `unknown parameter: text.format.${unknown}`, 'unknown_parameter');
  const f = checked(jsonSchema, format, 'text.format');
  return {
    responseFormat: {
      type: 'json_schema',
      name: f.name,
      schema: f.schema,
      ...(f.description ? { description: f.description } : {}),
      ...(typeof f.strict === 'boolean' ? { strict: f.strict } : {}),
    },
    echo: {
      format: {
        type: 'json_schema',
        name: f.name,
        schema: f.schema,
        description: f.description ?? null,
        strict: f.strict ?? false,
      },
    },
  };
}

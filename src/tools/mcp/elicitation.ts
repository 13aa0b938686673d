/**
 * An MCP server's `elicitation/create`, put to the user through the face of the
 * session whose tool call the server is serving — the same questions `ask_user`
 * asks (`ToolHost.ask`), so the terminal, the web page, editors and `tea serve`
 * clients all answer it. Form mode asks first whether to fill in, take the
 * defaults or decline, then one question per field (a blank answer keeps the
 * field's default, or leaves an optional field out); URL mode asks the user to
 * open the page. Where nobody can answer (`tea -p`, serve with approvals denied)
 * the request is declined, and the user is told.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { type ToolContext, ToolError, type ToolHost } from '../types.js';

type Params = ElicitRequest['params'];
type FormParams = Extract<Params, { requestedSchema: unknown }>;
type Field = FormParams['requestedSchema']['properties'][string];
type Value = string | number | boolean | string[];

export const FILL_IN = 'Fill in';
export const ACCEPT_DEFAULTS = 'Accept defaults';
export const DECLINE = 'Decline';
export const OPENED = 'Opened it';
const MAX_TRIES = 3;

/** Thrown inside to end the form: the user declined, or (`unanswered`) nobody can answer. */
class Declined extends Error {
  constructor(
    message: string,
    readonly unanswered = false,
  ) {
    super(message);
  }
}

function kind(field: Field): string {
  if (field.type === 'array') return 'list, comma-separated';
  if ('enum' in field || 'oneOf' in field) return 'one of the choices';
  if (field.type === 'string' && 'format' in field && field.format) return `text (${field.format})`;
  return field.type === 'string' ? 'text' : field.type;
}

/** The choices of an enum field, as `[value, label]`. */
function choices(field: Field): Array<[string, string]> {
  if (field.type === 'array') {
    const items = field.items as { enum?: string[]; anyOf?: Array<{ const: string; title: string }> };
    return items.enum ? items.enum.map((v) => [v, v]) : (items.anyOf ?? []).map((o) => [o.const, o.title]);
  }
  if ('oneOf' in field) return field.oneOf.map((o) => [o.const, o.title]);
  if ('enum' in field) {
    const names = 'enumNames' in field ? field.enumNames : undefined;
    return field.enum.map((v, i) => [v, names?.[i] ?? v]);
  }
  return [];
}

const hasDefault = (field: Field): boolean => field.default !== undefined;

/** One line per field for the opening question. */
function fieldLine(name: string, field: Field, required: boolean): string {
  const label = field.title ? `${field.title} (${name})` : name;
  const bits = [kind(field), required ? 'required' : 'optional'];
  if (hasDefault(field)) bits.push(`default ${JSON.stringify(field.default)}`);
  return `- ${label}: ${bits.join(', ')}${field.description ? ` — ${field.description}` : ''}`;
}

/** Parses one answer for `field`; throws a message for the user on a bad answer. */
export function parseAnswer(field: Field, raw: string): Value {
  const text = raw.trim();
  const options = choices(field);
  const pick = (t: string): string => {
    const hit = options.find(([v, label]) => v === t || label === t || v.toLowerCase() === t.toLowerCase());
    if (!hit) throw new Error(`choose one of: ${options.map(([, l]) => l).join(', ')}`);
    return hit[0];
  };
  if (field.type === 'array') {
    const picked = text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(pick);
    const min = field.minItems ?? 0;
    if (picked.length < min) throw new Error(`choose at least ${min}`);
    if (field.maxItems !== undefined && picked.length > field.maxItems)
      throw new Error(`choose at most ${field.maxItems}`);
    return picked;
  }
  if (options.length > 0) return pick(text);
  if (field.type === 'boolean') {
    if (/^(y|yes|true|1|on)$/i.test(text)) return true;
    if (/^(n|no|false|0|off)$/i.test(text)) return false;
    throw new Error('answer yes or no');
  }
  if (field.type === 'number' || field.type === 'integer') {
    const n = Number(text);
    if (text === '' || !Number.isFinite(n)) throw new Error('answer with a number');
    if (field.type === 'integer' && !Number.isInteger(n)) throw new Error('answer with a whole number');
    if (field.minimum !== undefined && n < field.minimum)
      throw new Error(`the least allowed is ${field.minimum}`);
    if (field.maximum !== undefined && n > field.maximum)
      throw new Error(`the most allowed is ${field.maximum}`);
    return n;
  }
  const s = field as { minLength?: number; maxLength?: number; format?: string };
  if (s.minLength !== undefined && text.length < s.minLength)
    throw new Error(`at least ${s.minLength} characters`);
  if (s.maxLength !== undefined && text.length > s.maxLength)
    throw new Error(`at most ${s.maxLength} characters`);
  if (s.format === 'email' && !/^[^@\s]+@[^@\s]+$/.test(text))
    throw new Error('answer with an email address');
  if (s.format === 'uri' && !URL.canParse(text)) throw new Error('answer with a URL');
  if (s.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(text))
    throw new Error('answer with a date, YYYY-MM-DD');
  return text;
}

/** The schema's defaults for the fields the answer leaves out (SEP-1034). */
export function withDefaults(
  schema: FormParams['requestedSchema'],
  content: Record<string, Value>,
): Record<string, Value> {
  const out = { ...content };
  for (const [name, field] of Object.entries(schema.properties)) {
    if (out[name] === undefined && field.default !== undefined) out[name] = field.default as Value;
  }
  return out;
}

async function askOrDecline(host: ToolHost, question: string, options?: string[]): Promise<string> {
  try {
    return await host.ask(question, options);
  } catch (error) {
    if (error instanceof ToolError) throw new Declined(error.message, true);
    throw error;
  }
}

async function askField(
  host: ToolHost,
  server: string,
  name: string,
  field: Field,
  required: boolean,
): Promise<Value | undefined> {
  const label = field.title ?? name;
  const opts = choices(field).map(([, l]) => l);
  const options = field.type === 'boolean' ? ['yes', 'no'] : opts.length > 0 ? opts : undefined;
  const keep = hasDefault(field)
    ? ` (leave blank for ${JSON.stringify(field.default)})`
    : required
      ? ''
      : ' (leave blank to skip)';
  let problem = '';
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const question = `${problem}MCP server "${server}" asks for ${label}${field.description ? ` — ${field.description}` : ''} [${kind(field)}]${keep}`;
    const raw = await askOrDecline(host, question, options);
    if (raw.trim() === '') {
      if (hasDefault(field) || !required) return undefined;
      problem = `${label} is required. `;
      continue;
    }
    try {
      return parseAnswer(field, raw);
    } catch (error) {
      problem = `Not valid: ${(error as Error).message}. `;
    }
  }
  throw new Declined(`no valid answer for ${label} after ${MAX_TRIES} tries`);
}

async function askForm(host: ToolHost, server: string, params: FormParams): Promise<ElicitResult> {
  const schema = params.requestedSchema;
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties);
  const defaultsDo = fields.every(([name, f]) => !required.has(name) || hasDefault(f));
  const intro = [
    `MCP server "${server}" asks: ${params.message}`,
    ...fields.map(([name, f]) => fieldLine(name, f, required.has(name))),
  ].join('\n');
  const options = [FILL_IN, ...(defaultsDo ? [ACCEPT_DEFAULTS] : []), DECLINE];
  const choice = (await askOrDecline(host, intro, options)).trim();
  if (choice.toLowerCase() === DECLINE.toLowerCase()) return { action: 'decline' };
  const content: Record<string, Value> = {};
  if (!(defaultsDo && choice.toLowerCase() === ACCEPT_DEFAULTS.toLowerCase())) {
    for (const [name, field] of fields) {
      const value = await askField(host, server, name, field, required.has(name));
      if (value !== undefined) content[name] = value;
    }
  }
  return { action: 'accept', content: withDefaults(schema, content) };
}

async function askUrl(
  host: ToolHost,
  server: string,
  params: Extract<Params, { mode: 'url' }>,
): Promise<ElicitResult> {
  const question = `MCP server "${server}" asks you to open ${params.url}\n${params.message}`;
  const choice = (await askOrDecline(host, question, [OPENED, DECLINE])).trim();
  return choice.toLowerCase() === DECLINE.toLowerCase() ? { action: 'decline' } : { action: 'accept' };
}

/** What a request gets where nobody can answer (config `mcp_elicitation.unattended`). */
export type Unattended = 'decline' | 'defaults';

/** The form's defaults, when `unattended` allows them and every required field has one. */
function unattendedAnswer(params: Params, unattended: Unattended): ElicitResult {
  if (unattended !== 'defaults' || params.mode === 'url') return { action: 'decline' };
  const schema = (params as FormParams).requestedSchema;
  const required = schema.required ?? [];
  if (!required.every((name) => schema.properties[name]?.default !== undefined)) return { action: 'decline' };
  return { action: 'accept', content: withDefaults(schema, {}) };
}

/**
 * Answers one elicitation request of `server` through the user's face; where nobody
 * can answer (no session, or one nobody answers in), `unattended` decides.
 */
export async function answerElicitation(
  server: string,
  params: Params,
  caller: ToolContext | undefined,
  unattended: Unattended = 'decline',
): Promise<ElicitResult> {
  const host = caller?.host;
  if (!host) return unattendedAnswer(params, unattended);
  try {
    return params.mode === 'url'
      ? await askUrl(host, server, params)
      : await askForm(host, server, params as FormParams);
  } catch (error) {
    if (error instanceof Declined) {
      const answer = error.unanswered ? unattendedAnswer(params, unattended) : { action: 'decline' as const };
      host.notify(
        `MCP server "${server}" asked for input`,
        `${answer.action === 'accept' ? 'Accepted its defaults' : 'Declined'}: ${error.message}. It asked: ${params.message}`,
      );
      return answer;
    }
    // The turn was cancelled while the user was being asked.
    if (caller.signal.aborted) return { action: 'cancel' };
    throw error;
  }
}

/**
 * Structured output: a child's final answer checked against its role's JSON Schema
 * (converted to zod once), and the message for the one repair round when it fails.
 */
import type { z } from 'zod';
import { loadZod } from './zod-full.js';

export type OutputCheck = { ok: true; value: unknown } | { ok: false; error: string };

/** Issues listed in an error; the rest are counted. */
const MAX_ISSUES = 8;

type Issue = z.core.$ZodIssue;

/** `findings[0].severity`; the whole answer is `(top level)`. */
function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(seg))) out += out ? `.${String(seg)}` : String(seg);
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out || '(top level)';
}

function describeIssue(issue: Issue): string {
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const options = issue.errors.map((branch) => branch[0]?.message.replace(/^Invalid input: /, '') ?? '?');
    return `matches none of the allowed forms (${options.join('; or ')})`;
  }
  return issue.message.replace(/^Invalid input: /, '');
}

/** The issues as lines `- path: what is wrong`, with nested union paths spelled out. */
function issueLines(issues: readonly Issue[]): string[] {
  const lines = issues.slice(0, MAX_ISSUES).map((i) => `- ${pathOf(i.path)}: ${describeIssue(i)}`);
  if (issues.length > MAX_ISSUES) lines.push(`- … and ${issues.length - MAX_ISSUES} more`);
  return lines;
}

const FENCE = /```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)```/g;

interface Candidate {
  text: string;
  /** Whose parse error is shown when none parses: the lowest (a fence's) wins. */
  rank: number;
}

/** The texts that may hold the answer's JSON, most likely first. */
function candidates(text: string): Candidate[] {
  const trimmed = text.trim();
  const out: Candidate[] = [{ text: trimmed, rank: 2 }];
  const fences = [...trimmed.matchAll(FENCE)].map((m) => ({
    lang: (m[1] ?? '').toLowerCase(),
    body: m[2] ?? '',
  }));
  const lastJson = fences.filter((f) => f.lang === 'json' || f.lang === 'jsonc').at(-1);
  if (lastJson) out.push({ text: lastJson.body.trim(), rank: 0 });
  const last = fences.at(-1);
  if (last && last !== lastJson) out.push({ text: last.body.trim(), rank: lastJson ? 1 : 0 });
  const start = trimmed.search(/[{[]/);
  const end = Math.max(trimmed.lastIndexOf('}'), trimmed.lastIndexOf(']'));
  if (start >= 0 && end > start)
    out.push({ text: trimmed.slice(start, end + 1), rank: fences.length ? 1 : 0 });
  return out;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * A checker for answers that must match `schema` (a JSON Schema): the answer may be raw
 * JSON, or JSON in a ```json fence (or the last fenced block). Throws when `schema`
 * cannot be converted (roles loaded by loadRoles have been checked already).
 */
export async function outputChecker(schema: Record<string, unknown>): Promise<(text: string) => OutputCheck> {
  const z = await loadZod();
  let zodSchema: z.ZodType;
  try {
    zodSchema = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new Error(`the output schema is not a JSON Schema zod can use: ${(error as Error).message}`);
  }
  return (text: string): OutputCheck => {
    if (!text.trim()) {
      return {
        ok: false,
        error: 'The answer is empty; it must be one JSON value matching the output schema.',
      };
    }
    let failure: { reason: string; rank: number } | undefined;
    for (const candidate of candidates(text)) {
      const parsed = parseJson(candidate.text);
      if (!parsed.ok) {
        if (!failure || candidate.rank < failure.rank)
          failure = { reason: parsed.reason, rank: candidate.rank };
        continue;
      }
      const result = zodSchema.safeParse(parsed.value);
      if (result.success) return { ok: true, value: result.data };
      const lines = issueLines(result.error.issues);
      return { ok: false, error: ['The answer does not match the output schema:', ...lines].join('\n') };
    }
    return {
      ok: false,
      error: `The answer is not valid JSON (${failure?.reason ?? 'no JSON found'}). Give only the JSON value, or put it in a \`\`\`json fence.`,
    };
  };
}

/** The message that asks a child, once, to correct an answer `outputChecker` refused. */
export function repairPrompt(error: string, schema: Record<string, unknown>): string {
  return [
    'Your final answer must be JSON matching the output schema, and it is not:',
    error,
    '',
    'Reply again with the corrected answer only: one JSON value in a ```json fence, no other text. Keep the content of your answer; fix only its form. The schema:',
    '```json',
    JSON.stringify(schema, null, 2),
    '```',
  ].join('\n');
}

/**
 * The tools reference (TOOLS.md), made from the tool registry: every tool grouped by
 * category, with its description, approval class and parameters (read from the JSON
 * schema the model sees). The text depends on the tools alone (sorted, no dates), so
 * an unchanged registry gives the same bytes and the file is left untouched.
 */
import { lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

type Json = Record<string, unknown>;

export interface ToolDoc {
  name: string;
  category: string;
  description: string;
  approval: string;
  readOnly: boolean;
  concurrencySafe: boolean;
  /** The JSON schema of its parameters. */
  parameters: Json;
}

interface ParamRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
}

/** A short type for a JSON schema: `string`, `integer`, `"a" | "b"`, `string[]`, `object`. */
export function typeOf(schema: unknown): string {
  if (!isObject(schema)) return 'any';
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(union)) return [...new Set(union.map(typeOf))].join(' | ');
  const t = schema.type;
  if (Array.isArray(t))
    return t.map((x) => (x === 'array' ? `${typeOf(schema.items)}[]` : String(x))).join(' | ');
  if (t === 'array') {
    const inner = typeOf(schema.items);
    return inner.includes(' ') ? `(${inner})[]` : `${inner}[]`;
  }
  return typeof t === 'string' ? t : 'any';
}

/** Rows for an object schema's properties, and one level of nested objects (`edits[].old`). */
function rows(schema: unknown, prefix = '', depth = 0): ParamRow[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const out: ParamRow[] = [];
  for (const [key, prop] of Object.entries(schema.properties)) {
    const p = isObject(prop) ? prop : {};
    let description = typeof p.description === 'string' ? p.description : '';
    if ('default' in p)
      description = `${description}${description ? ' ' : ''}(default: ${JSON.stringify(p.default)})`;
    const name = `${prefix}${key}`;
    out.push({ name, type: typeOf(p), required: required.has(key), description });
    if (depth < 1) {
      if (isObject(p.properties)) out.push(...rows(p, `${name}.`, depth + 1));
      else if (p.type === 'array' && isObject(p.items)) out.push(...rows(p.items, `${name}[].`, depth + 1));
    }
  }
  return out;
}

/** GitHub's heading anchor for a plain heading. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const yesNo = (b: boolean): string => (b ? 'yes' : 'no');

function toolSection(t: ToolDoc): string[] {
  const lines = [`### ${t.name}`, '', t.description.trim(), ''];
  lines.push(
    `Approval: \`${t.approval}\` · read-only: ${yesNo(t.readOnly)} · runs in parallel: ${yesNo(t.concurrencySafe)}`,
    '',
  );
  const params = rows(t.parameters);
  if (params.length === 0) {
    lines.push('No parameters.', '');
    return lines;
  }
  lines.push('| Parameter | Type | Required | Description |', '| --- | --- | --- | --- |');
  for (const p of params)
    lines.push(`| \`${cell(p.name)}\` | ${cell(p.type)} | ${yesNo(p.required)} | ${cell(p.description)} |`);
  lines.push('');
  return lines;
}

/** The whole reference as Markdown. */
export function renderReference(tools: readonly ToolDoc[]): string {
  const byCategory = new Map<string, ToolDoc[]>();
  for (const t of [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    byCategory.set(t.category, [...(byCategory.get(t.category) ?? []), t]);
  }
  const categories = [...byCategory.keys()].sort();
  const lines = [
    '# Tools',
    '',
    `The ${tools.length} tools Tea Agent offers the model, by category: what each does, the approval it needs`,
    '(`none`, `write`, `exec`, `network`; see "Permissions" in the README) and its parameters.',
    'Generated from the tool registry by `tea evolve upkeep` (hourly while `tea serve` runs): do not edit by hand.',
    '',
    ...categories.map((c) => `- [${c}](#${anchor(c)}) (${byCategory.get(c)!.length})`),
    '',
  ];
  for (const c of categories) {
    lines.push(`## ${c}`, '');
    for (const t of byCategory.get(c)!) lines.push(...toolSection(t));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

export type WriteStatus = 'written' | 'unchanged';

/**
 * Writes `text` to `file` unless it holds exactly that already. Refuses a file or a
 * folder on the way that is a symbolic link, or a folder that resolves outside `root`
 * (the reference is written where it belongs, never through a link elsewhere). The
 * write goes to a temporary file renamed into place, so a reader never sees half.
 */
export function writeReference(file: string, text: string, root: string): WriteStatus {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true });
  const realRoot = realpathSync(root);
  const realDir = realpathSync(dir);
  if (realDir !== realRoot && !realDir.startsWith(`${realRoot}${path.sep}`))
    throw new Error(`${dir} leads outside ${root} (a symbolic link?): the tools reference was not written`);
  let current: string | undefined;
  try {
    if (lstatSync(file).isSymbolicLink())
      throw new Error(`${file} is a symbolic link: remove it, then the tools reference can be written`);
    current = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (current === text) return 'unchanged';
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
  return 'written';
}

/**
 * One SKILL.md as a Skill, or the reason it is skipped. Lenient where other agents'
 * skills need it (a folder named differently, a long description, keys tea does not
 * know), strict where a bad value would make the skill unusable or unsafe to address
 * (a missing description, a name outside the spec's characters).
 */
import { basename } from 'node:path';
import { displayPath } from '../../config/errors.js';
import { splitFrontmatter } from '../../config/frontmatter.js';
import { MAX_COMPATIBILITY, MAX_DESCRIPTION, nameProblem, suggestName } from './names.js';
import type { Skill, ToolNameMapper } from './types.js';

/** What was wrong with a key, in the config's style. */
export interface Problem {
  key: string;
  expected: string;
  got: string;
  fix: string;
}

/** `<file>: <key>: expected …, got …; the skill was skipped. Fix: …` */
export function skippedMessage(file: string, p: Problem): string {
  return `${displayPath(file)}: ${p.key}: expected ${p.expected}, got ${p.got}; the skill was skipped. Fix: ${p.fix}`;
}

/** `<file>: <key>: <what>. Fix: …` for something ignored or changed in a skill that loaded. */
export function noteMessage(file: string, key: string, what: string, fix: string): string {
  return `${displayPath(file)}: ${key}: ${what}. Fix: ${fix}`;
}

export type Parsed =
  | { kind: 'skill'; skill: Omit<Skill, 'source' | 'stamp' | 'realDir'>; body: string; notes: string[] }
  | { kind: 'skipped'; warning: string };

function shown(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

class Skip extends Error {
  constructor(readonly problem: Problem) {
    super(problem.key);
  }
}

function skillName(raw: unknown, folder: string, file: string, notes: string[]): string {
  // `name: 2024` is read as a number by YAML: as a name it is text.
  const value = typeof raw === 'number' ? String(raw) : raw;
  if (value === undefined || value === null || value === '') {
    if (nameProblem(folder) === undefined) {
      notes.push(
        noteMessage(
          file,
          'name',
          `missing; the skill is named "${folder}" after its folder`,
          `add \`name: ${folder}\`.`,
        ),
      );
      return folder;
    }
    throw new Skip({
      key: 'name',
      expected: 'a skill name',
      got: 'nothing',
      fix: `add \`name: ${suggestName(folder)}\` and name the folder the same.`,
    });
  }
  const problem = typeof value === 'string' ? nameProblem(value) : 'not text';
  if (typeof value !== 'string' || problem !== undefined) {
    throw new Skip({
      key: 'name',
      expected: 'at most 64 lower-case letters, digits and single hyphens (not at either end)',
      got: `${shown(value)} (${problem})`,
      fix: `rename it, e.g. \`name: ${suggestName(String(value))}\`, and name the folder the same.`,
    });
  }
  if (value !== folder) {
    notes.push(
      noteMessage(
        file,
        'name',
        `"${value}" differs from its folder's name "${folder}"; it loads as "${value}"`,
        `rename the folder to ${value}, or the skill to ${folder}.`,
      ),
    );
  }
  return value;
}

function describe(value: unknown, file: string, notes: string[]): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new Skip({
      key: 'description',
      expected: 'a sentence or two saying what the skill does and when to use it',
      got: shown(value),
      fix: 'add e.g. `description: Fill and merge PDF forms. Use when the user works with PDF files.`',
    });
  }
  const text = value.replace(/\s+/g, ' ').trim();
  if (text.length > MAX_DESCRIPTION)
    notes.push(
      noteMessage(
        file,
        'description',
        `${text.length} characters (the spec allows ${MAX_DESCRIPTION}); only its start is shown to the model`,
        'shorten it.',
      ),
    );
  return text;
}

function optionalText(
  value: unknown,
  key: string,
  file: string,
  notes: string[],
  max?: number,
): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') {
    notes.push(
      noteMessage(
        file,
        key,
        `expected text, got ${shown(value)}; ignored`,
        `write one line, e.g. \`${key}: …\`.`,
      ),
    );
    return undefined;
  }
  const text = String(value).trim();
  if (max !== undefined && text.length > max)
    notes.push(noteMessage(file, key, `${text.length} characters (the spec allows ${max})`, 'shorten it.'));
  return text || undefined;
}

function metadataOf(value: unknown, file: string, notes: string[]): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    notes.push(
      noteMessage(
        file,
        'metadata',
        `expected a mapping of keys to text, got ${shown(value)}; ignored`,
        'write e.g. `metadata: { author: me, version: "1.0" }`.',
      ),
    );
    return {};
  }
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    out[key] = typeof v === 'string' ? v : v instanceof Date ? v.toISOString() : JSON.stringify(v);
  }
  return out;
}

/** `Bash(git status:*) Read` → `Bash(git status:*)`, `Read`: spaces inside brackets do not split. */
export function splitToolList(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let word = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if ((ch === ' ' || ch === ',' || ch === '\t' || ch === '\n') && depth === 0) {
      if (word) out.push(word);
      word = '';
    } else word += ch;
  }
  if (word) out.push(word);
  return out;
}

function allowedToolsOf(value: unknown, file: string, notes: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return splitToolList(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
    return value.map((v) => v.trim()).filter(Boolean);
  notes.push(
    noteMessage(
      file,
      'allowed-tools',
      `expected a space-separated string or a list of tool names, got ${shown(value)}; ignored`,
      'write e.g. `allowed-tools: Bash(node:*) Read`.',
    ),
  );
  return [];
}

/** tea's names for the advised tools: mapped where known, each once. */
export function teaTools(allowed: readonly string[], map: ToolNameMapper): string[] {
  const out = new Set<string>();
  for (const entry of allowed) for (const name of map(entry)) out.add(name);
  return [...out];
}

/** Parses the text of `file` (the SKILL.md in `dir`). */
export function parseSkill(text: string, file: string, dir: string, map: ToolNameMapper): Parsed {
  const split = splitFrontmatter(text);
  if (!split.ok) {
    const fix =
      split.key === '(frontmatter)' && split.got === 'none' && split.expected.startsWith('a YAML block')
        ? 'start SKILL.md with `---`, then `name:` and `description:` lines, then `---`, then the instructions.'
        : split.fix;
    return { kind: 'skipped', warning: skippedMessage(file, { ...split, fix }) };
  }
  const notes: string[] = [];
  try {
    const data = split.data;
    const name = skillName(data.name, basename(dir), file, notes);
    const description = describe(data.description, file, notes);
    const license = optionalText(data.license, 'license', file, notes);
    const compatibility = optionalText(data.compatibility, 'compatibility', file, notes, MAX_COMPATIBILITY);
    const allowedTools = allowedToolsOf(data['allowed-tools'], file, notes);
    const skill = {
      name,
      description,
      dir,
      file,
      ...(license ? { license } : {}),
      ...(compatibility ? { compatibility } : {}),
      allowedTools,
      tools: teaTools(allowedTools, map),
      metadata: metadataOf(data.metadata, file, notes),
      modelInvocable: data['disable-model-invocation'] !== true,
    };
    return { kind: 'skill', skill, body: split.body, notes };
  } catch (error) {
    if (error instanceof Skip) return { kind: 'skipped', warning: skippedMessage(file, error.problem) };
    throw error;
  }
}

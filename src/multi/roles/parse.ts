/** A role file's frontmatter and body as a Role, or the reason the file is skipped. */
import { basename } from 'node:path';
import { closest } from '../../config/suggest.js';
import type { PermissionMode } from '../../tools/permissions.js';
import { noteMessage, type Problem, skippedMessage } from './problems.js';
import { schemaProblem } from './schema-check.js';
import { resolveTool, teaToolNames, toolNameExamples } from './tool-names.js';
import { ROLE_NAME, ROLE_NAME_MAX, type Role } from './types.js';

export type Parsed =
  | { kind: 'role'; role: Role; warnings: string[] }
  | { kind: 'skipped'; warning: string }
  | { kind: 'disabled' };

export interface ParseContext {
  profiles: ReadonlySet<string>;
  knownTools: ReadonlySet<string>;
}

const TEA_KEYS = [
  'name',
  'description',
  'tools',
  'disallowed_tools',
  'model',
  'max_turns',
  'permission_mode',
  'output_schema',
  'as_tool',
];
/** Claude Code's spellings of tea's keys. */
const CLAUDE_SPELLINGS: Record<string, string> = {
  maxTurns: 'max_turns',
  permissionMode: 'permission_mode',
  disallowedTools: 'disallowed_tools',
};
/** Claude Code keys tea has no use for: ignored without a word. */
const CLAUDE_ONLY = new Set([
  'color',
  'skills',
  'mcpServers',
  'hooks',
  'memory',
  'background',
  'isolation',
  'effort',
  'disabled',
]);
const CLAUDE_MODELS = new Set(['sonnet', 'opus', 'haiku']);
const MODES: readonly PermissionMode[] = ['read-only', 'ask', 'auto-edit', 'yolo'];
/** Claude Code's permission modes as tea's. */
const CLAUDE_MODES: Record<string, PermissionMode> = {
  default: 'ask',
  acceptEdits: 'auto-edit',
  plan: 'read-only',
  dontAsk: 'read-only',
  bypassPermissions: 'yolo',
};

class Skip extends Error {
  constructor(readonly problem: Problem) {
    super(problem.key);
  }
}

function shown(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** `Code Reviewer.md` → `code-reviewer`: a name that passes the rule. */
export function nameFrom(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, ROLE_NAME_MAX);
  return name || 'my-role';
}

function roleName(raw: unknown, file: string): string {
  // `name: 2024` is read as a number by YAML: as a name it is text.
  const value = typeof raw === 'number' ? String(raw) : raw;
  const example = nameFrom(basename(file, '.md'));
  if (value === undefined || value === null || value === '') {
    throw new Skip({
      key: 'name',
      expected: 'a role name',
      got: 'nothing',
      fix: `add \`name: ${example}\` to the frontmatter.`,
    });
  }
  if (typeof value !== 'string' || !ROLE_NAME.test(value) || value.length > ROLE_NAME_MAX) {
    const fixed = nameFrom(String(value));
    throw new Skip({
      key: 'name',
      expected: `lower-case letters, digits, _ and - (starting with a letter or digit, at most ${ROLE_NAME_MAX})`,
      got: shown(value),
      fix: `rename it, e.g. \`name: ${fixed}\`.`,
    });
  }
  return value;
}

function description(value: unknown): string {
  if (typeof value === 'string' && value.trim()) return value.trim();
  throw new Skip({
    key: 'description',
    expected: 'a sentence saying when to use this role',
    got: shown(value),
    fix: 'add e.g. `description: Reviews a diff for bugs; use after code changes.`',
  });
}

/** A `tools` list (a comma-separated string or a YAML list) as tea tool names. */
function toolList(
  value: unknown,
  key: string,
  ctx: ParseContext,
  notes: Array<[string, string]>,
): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  let entries: unknown[];
  if (typeof value === 'string') entries = value.split(',');
  else if (Array.isArray(value)) entries = value;
  else {
    throw new Skip({
      key,
      expected: 'a list of tool names, or one comma-separated string',
      got: shown(value),
      fix: `write e.g. \`${key}: read_file, grep, glob\` or \`${key}: [Read, Grep, Glob]\`.`,
    });
  }
  const out: string[] = [];
  const unknown: string[] = [];
  for (const raw of entries) {
    if (typeof raw !== 'string') {
      unknown.push(shown(raw));
      continue;
    }
    const entry = raw.trim();
    if (!entry) continue;
    const resolved = resolveTool(entry, ctx.knownTools);
    if (!resolved.ok) {
      unknown.push(`"${entry}"${resolved.suggestion ? ` (did you mean "${resolved.suggestion}"?)` : ''}`);
      continue;
    }
    if (resolved.note) notes.push([key, resolved.note]);
    for (const tool of resolved.tools) if (!out.includes(tool)) out.push(tool);
  }
  if (unknown.length > 0) {
    throw new Skip({
      key,
      expected: 'known tool names',
      got: `unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`,
      fix: `use ${toolNameExamples()}.`,
    });
  }
  return out;
}

function maxTurns(value: unknown, key: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  throw new Skip({
    key,
    expected: 'a positive integer (model calls per child turn)',
    got: shown(value),
    fix: `set it to a whole number such as \`${key}: 20\`, or remove it for the default.`,
  });
}

function permissionMode(value: unknown, key: string): PermissionMode | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && (MODES as readonly string[]).includes(value))
    return value as PermissionMode;
  if (key === 'permissionMode' && typeof value === 'string' && CLAUDE_MODES[value])
    return CLAUDE_MODES[value];
  const claude =
    key === 'permissionMode' ? ` (or Claude Code's ${Object.keys(CLAUDE_MODES).join(', ')})` : '';
  throw new Skip({
    key,
    expected: `one of ${MODES.join(', ')}${claude}`,
    got: shown(value),
    fix: `e.g. \`${key}: read-only\` for a role that must not change anything.`,
  });
}

async function outputSchema(value: unknown): Promise<Record<string, unknown> | undefined> {
  if (value === undefined || value === null) return undefined;
  const problem = await schemaProblem(value);
  if (!problem) return value as Record<string, unknown>;
  throw new Skip({
    key: problem.at === '(top level)' ? 'output_schema' : `output_schema.${problem.at}`,
    expected: problem.expected,
    got: problem.got,
    fix: 'write output_schema as a YAML mapping holding a JSON Schema, e.g. `output_schema: { type: object, properties: { summary: { type: string } }, required: [summary] }`.',
  });
}

function boolean(value: unknown, key: string): boolean | undefined {
  if (value === undefined || value === null || typeof value === 'boolean') return value ?? undefined;
  throw new Skip({
    key,
    expected: 'true or false',
    got: shown(value),
    fix: `write \`${key}: true\` or remove it.`,
  });
}

/** A key's value under its tea name or its Claude Code spelling (tea's wins), with the key used. */
function pick(data: Record<string, unknown>, key: string): [unknown, string] {
  if (data[key] !== undefined && data[key] !== null) return [data[key], key];
  const claude = Object.keys(CLAUDE_SPELLINGS).find((k) => CLAUDE_SPELLINGS[k] === key);
  if (claude && data[claude] !== undefined) return [data[claude], claude];
  return [undefined, key];
}

/** The role in `file`, whose frontmatter is `data` and body `body`. */
export async function parseRole(
  file: string,
  data: Record<string, unknown>,
  body: string,
  ctx: ParseContext,
): Promise<Parsed> {
  if (data.disabled === true) return { kind: 'disabled' };
  const notes: Array<[string, string]> = [];
  const warnings: string[] = [];
  try {
    const name = roleName(data.name, file);
    const role: Role = { name, description: description(data.description), prompt: body, source: file };
    const [toolsValue, toolsKey] = pick(data, 'tools');
    const tools = toolList(toolsValue, toolsKey, ctx, notes);
    const [denyValue, denyKey] = pick(data, 'disallowed_tools');
    const denied = toolList(denyValue, denyKey, ctx, notes);
    if (tools) role.tools = denied ? tools.filter((t) => !denied.includes(t)) : tools;
    else if (denied && denied.length > 0) role.disallowedTools = denied;

    const model = data.model;
    if (model !== undefined && model !== null && (typeof model !== 'string' || !model.trim())) {
      throw new Skip({
        key: 'model',
        expected: 'a tea profile name, a model id, or inherit',
        got: shown(model),
        fix: 'e.g. `model: inherit` (the parent model) or the name of a profile in ~/.tea/config.yaml.',
      });
    }
    if (typeof model === 'string' && model.trim() !== 'inherit') {
      const m = model.trim();
      if (CLAUDE_MODELS.has(m) && !ctx.profiles.has(m)) {
        role.modelAlias = m;
        warnings.push(
          noteMessage(
            file,
            'model',
            `"${m}" is a Claude Code model alias and no tea profile has that name, so this role runs on the parent's model`,
            `add a profile named ${m} to ~/.tea/config.yaml, or set model to a tea profile name, a model id or inherit.`,
          ),
        );
      } else role.model = m;
    }
    const [turnsValue, turnsKey] = pick(data, 'max_turns');
    const turns = maxTurns(turnsValue, turnsKey);
    if (turns !== undefined) role.maxTurns = turns;
    const [modeValue, modeKey] = pick(data, 'permission_mode');
    const mode = permissionMode(modeValue, modeKey);
    if (mode) role.permissionMode = mode;
    const schema = await outputSchema(data.output_schema);
    if (schema) role.outputSchema = schema;
    const asTool = boolean(data.as_tool, 'as_tool');
    if (asTool && (teaToolNames().includes(name) || ctx.knownTools.has(name))) {
      warnings.push(
        noteMessage(
          file,
          'as_tool',
          `the role "${name}" is not offered as a tool because a tool of that name exists`,
          `rename the role, e.g. \`name: ${nameFrom(`${name}-agent`)}\`.`,
        ),
      );
    } else if (asTool !== undefined) role.asTool = asTool;

    for (const key of Object.keys(data)) {
      if (TEA_KEYS.includes(key) || key in CLAUDE_SPELLINGS || CLAUDE_ONLY.has(key)) continue;
      const near = closest(key, [...TEA_KEYS, ...Object.keys(CLAUDE_SPELLINGS)], 1)[0];
      warnings.push(
        noteMessage(
          file,
          key,
          `unknown key, ignored${near ? `; did you mean "${near}"?` : ''}`,
          near ? `rename it to "${near}", or remove it.` : `remove it; known keys: ${TEA_KEYS.join(', ')}.`,
        ),
      );
    }
    if (!body) {
      warnings.push(
        noteMessage(
          file,
          '(body)',
          'no instructions after the frontmatter; the child gets only its task',
          'write the role instructions below the closing `---`.',
        ),
      );
    }
    for (const [key, note] of notes) warnings.push(noteMessage(file, key, note));
    return { kind: 'role', role, warnings };
  } catch (error) {
    if (error instanceof Skip) return { kind: 'skipped', warning: skippedMessage(file, error.problem) };
    throw error;
  }
}

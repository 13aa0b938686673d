/**
 * A skill draft from a task that succeeded with a non-trivial plan, on the cheap model,
 * in the Agent Skills format (a folder holding SKILL.md: YAML frontmatter `name` and
 * `description`, then Markdown). The model answers JSON; the draft is checked and the
 * file is written here (inbox.ts puts it in the inbox), so a careless answer cannot
 * produce a malformed skill or a name that escapes its folder.
 */
import { stringify } from 'yaml';
import { ask } from '../../llm/collect.js';
import type { Message, Provider, Usage } from '../../llm/types.js';
import { readJsonObject, renderTask } from './steps.js';

export const SKILL_NAME_MAX = 64;
export const SKILL_DESCRIPTION_MAX = 1024;
/** Lowercase letters, digits and single hyphens between them (the Agent Skills rule). */
export const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Words the Agent Skills spec reserves in names. */
const RESERVED = /(?:^|-)(?:anthropic|claude)(?:-|$)/;
const MAX_STEPS = 15;
const MAX_PITFALLS = 8;
const ITEM_MAX = 400;

export interface SkillDraft {
  name: string;
  description: string;
  whenToUse: string;
  steps: string[];
  pitfalls: string[];
}

export interface ExistingSkill {
  name: string;
  description: string;
}

export interface SucceededTask {
  input: string;
  messages: readonly Message[];
  finalText: string;
}

const SYSTEM = `You turn a task an AI coding agent just completed into a reusable skill: a short procedure it can follow the next time a similar task comes up.

Answer with JSON only:
{"name": "lowercase-hyphenated-name", "description": "What it does and when to use it (one or two sentences, starting with what it does, then 'Use when …').", "when_to_use": "…", "steps": ["…", "…"], "pitfalls": ["…"]}

Rules:
- name: at most 64 characters, lowercase letters, digits and hyphens; says what the skill does (e.g. "add-sqlite-migration").
- The procedure is general: no one-off paths, ids or values from this task; name the tools, commands and files a similar task would use.
- steps: the steps in order, each one sentence or command. pitfalls: what went wrong or nearly did, and how to avoid it.
- If the task is not a reusable procedure, or one of the existing skills listed below already covers it, answer {"skip": "why"}.`;

export function draftPrompt(
  task: SucceededTask,
  existing: readonly ExistingSkill[],
): { system: string; user: string } {
  const known =
    existing.length === 0
      ? '(none)'
      : existing
          .slice(0, 40)
          .map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, ' ').slice(0, 160)}`)
          .join('\n');
  return { system: SYSTEM, user: `${renderTask(task)}\n\nExisting skills:\n${known}` };
}

/**
 * A name as the Agent Skills rule wants it: lower case, runs of anything else turned
 * into one hyphen, no hyphen at either end, cut at a hyphen to SKILL_NAME_MAX.
 * Undefined when nothing usable is left.
 */
export function normaliseSkillName(raw: string): string | undefined {
  let name = raw
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (name.length > SKILL_NAME_MAX) {
    name = name.slice(0, SKILL_NAME_MAX);
    const cut = name.lastIndexOf('-');
    name = (cut > 0 ? name.slice(0, cut) : name).replace(/-+$/, '');
  }
  return SKILL_NAME.test(name) ? name : undefined;
}

const strings = (raw: unknown, max: number): string[] =>
  (Array.isArray(raw) ? raw : [])
    .filter((s): s is string => typeof s === 'string')
    .map((s) => s.replace(/\s+/g, ' ').trim().slice(0, ITEM_MAX))
    .filter((s) => s !== '')
    .slice(0, max);

/** Problems that make a draft unusable (empty when it is fine). */
export function draftProblems(d: SkillDraft): string[] {
  const problems: string[] = [];
  if (!SKILL_NAME.test(d.name) || d.name.length > SKILL_NAME_MAX) {
    problems.push(
      `name "${d.name}" must be 1–${SKILL_NAME_MAX} lowercase letters, digits and single hyphens`,
    );
  }
  if (RESERVED.test(d.name)) problems.push(`name "${d.name}" holds a reserved word (anthropic, claude)`);
  if (d.description.trim() === '') problems.push('description is empty');
  if (d.description.length > SKILL_DESCRIPTION_MAX) {
    problems.push(`description is ${d.description.length} characters (at most ${SKILL_DESCRIPTION_MAX})`);
  }
  if (/<[a-z/!][^>]*>/i.test(`${d.name} ${d.description}`))
    problems.push('name or description holds XML/HTML tags');
  if (d.steps.length < 2) problems.push(`${d.steps.length} step(s): a skill needs at least 2`);
  return problems;
}

export type DraftReading = { draft: SkillDraft } | { skip: string };

/** The model's answer as a draft (names normalised), or why there is none. */
export function parseDraft(text: string): DraftReading {
  const obj = readJsonObject(text);
  if (!obj) return { skip: 'the answer held no JSON object' };
  if (obj.skip !== undefined && obj.skip !== false) {
    return { skip: `the model skipped it: ${String(obj.skip).slice(0, 200)}` };
  }
  const name = typeof obj.name === 'string' ? normaliseSkillName(obj.name) : undefined;
  if (name === undefined) return { skip: 'no usable name' };
  const description = typeof obj.description === 'string' ? obj.description.replace(/\s+/g, ' ').trim() : '';
  const whenRaw = obj.when_to_use ?? obj.whenToUse;
  const draft: SkillDraft = {
    name,
    description,
    whenToUse: typeof whenRaw === 'string' ? whenRaw.trim().slice(0, ITEM_MAX * 2) : '',
    steps: strings(obj.steps, MAX_STEPS),
    pitfalls: strings(obj.pitfalls, MAX_PITFALLS),
  };
  const problems = draftProblems(draft);
  return problems.length > 0 ? { skip: `invalid draft: ${problems.join('; ')}` } : { draft };
}

const title = (name: string): string =>
  name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');

/** SKILL.md for `draft`: frontmatter (name, description, metadata) and the body. */
export function renderSkill(draft: SkillDraft, meta: { session: string; draftedAt: string }): string {
  const front = stringify(
    {
      name: draft.name,
      description: draft.description,
      metadata: { source: 'tea-draft', session: meta.session, drafted_at: meta.draftedAt },
    },
    { lineWidth: 0 },
  );
  const body = [
    `# ${title(draft.name)}`,
    '',
    '## When to use',
    '',
    draft.whenToUse || draft.description,
    '',
    '## Steps',
    '',
    ...draft.steps.map((s, i) => `${i + 1}. ${s}`),
  ];
  if (draft.pitfalls.length > 0) body.push('', '## Pitfalls', '', ...draft.pitfalls.map((p) => `- ${p}`));
  return `---\n${front}---\n\n${body.join('\n')}\n`;
}

/** Asks the cheap model for a draft of `task`, told which skills exist already. */
export async function draftSkill(
  cheap: Provider,
  task: SucceededTask,
  existing: readonly ExistingSkill[],
  signal?: AbortSignal,
): Promise<{ reading: DraftReading; usage: Usage }> {
  const completion = await ask(cheap, draftPrompt(task, existing), { temperature: 0.2, signal });
  return { reading: parseDraft(completion.text), usage: completion.usage };
}

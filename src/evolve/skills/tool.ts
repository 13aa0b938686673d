/**
 * The `skill` tool: loads one skill on demand (progressive disclosure's second step).
 * It answers with the instructions, the skill's folder and the files in it; the model
 * then reads those with read_file (the folder is readable while the skill is offered)
 * and runs scripts with bash, under the same permission policy as any other call.
 * Loaded on the first call (register.ts registers its facts).
 */
import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { closest } from '../../config/suggest.js';
import { type Tool, ToolError } from '../../tools/types.js';
import type { SkillCatalog } from './catalog.js';
import { skillFiles } from './files.js';
import { shownName } from './names.js';
import { parseSkill } from './parse.js';
import { SKILL_TOOL_INFO } from './tool-info.js';
import type { Skill, ToolNameMapper } from './types.js';

const parameters = z.object({ name: z.string().min(1).describe("The skill's name") });

/** The instructions of `skill`, read again now (an edit since the scan shows at once). */
async function bodyOf(skill: Skill, map: ToolNameMapper): Promise<string> {
  let text: string;
  try {
    text = await readFile(skill.file, 'utf8');
  } catch (error) {
    throw new ToolError(
      `The skill "${skill.name}" could not be read: ${(error as Error).message}`,
      'tell the user; `tea skills list` shows where it is',
    );
  }
  const parsed = parseSkill(text, skill.file, skill.dir, map);
  if (parsed.kind === 'skipped')
    throw new ToolError(
      `The skill "${skill.name}" is no longer valid: ${parsed.warning}`,
      'tell the user what to fix',
    );
  return parsed.body;
}

/** The tool's answer for `skill`: instructions, folder, files, and its advisory fields. */
export async function skillAnswer(skill: Skill, map: ToolNameMapper): Promise<string> {
  const [body, list] = await Promise.all([bodyOf(skill, map), skillFiles(skill.realDir)]);
  const lines = [
    `<skill name="${skill.name}" folder="${skill.realDir}">`,
    body || '(no instructions beyond the description)',
    '</skill>',
    '',
  ];
  lines.push(
    `Paths in these instructions are relative to the skill's folder, ${skill.realDir}. Read its files with read_file using absolute paths (the folder is readable, not writable), and run its scripts with bash from the working directory, writing any output there.`,
  );
  if (list.files.length > 0) {
    lines.push(`Files${list.more ? ` (the first ${list.files.length})` : ''}:`);
    for (const f of list.files) lines.push(`  ${f}`);
  }
  if (skill.allowedTools.length > 0) {
    const mapped = skill.tools.length > 0 ? ` (tea: ${skill.tools.join(', ')})` : '';
    lines.push(
      `The skill expects these tools: ${skill.allowedTools.join(' ')}${mapped}. This is advice only: the permission mode decides what runs.`,
    );
  }
  if (skill.compatibility) lines.push(`Compatibility: ${skill.compatibility}`);
  return lines.join('\n');
}

export function skillTool(catalog: SkillCatalog, map: ToolNameMapper): Tool<typeof parameters> {
  return {
    ...SKILL_TOOL_INFO,
    parameters,
    subject: (args) => args.name,
    async execute(args, ctx) {
      const set = await catalog.get(ctx.cwd);
      const skill = set.skills.find((s) => s.name === args.name);
      if (!skill) {
        const names = set.skills.map((s) => s.name);
        if (names.length === 0)
          throw new ToolError(
            `No skill named ${shownName(args.name)}: no skills are installed for this workspace`,
            'carry on without a skill',
          );
        const near = closest(args.name.slice(0, 100), names, 3, false);
        throw new ToolError(
          `No skill named ${shownName(args.name)}`,
          `the installed skills closest to it: ${near.join(', ')}; call skill with one of the names under ## Skills`,
        );
      }
      return skillAnswer(skill, map);
    },
  };
}

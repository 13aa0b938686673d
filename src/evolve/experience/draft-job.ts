/**
 * Drafting a skill from a succeeded task into the inbox: the known skills are read
 * (names and descriptions, so the model and the duplicate check see them), the cheap
 * model drafts, the draft is checked and written (inbox.ts), and the evaluation notes
 * the draft's name — or why there is none. And taking a draft back out of the inbox
 * when the user says the task it came from went wrong.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { HookContext, PromptRecord } from '../../agent/evolve-hooks.js';
import type { TaskEvaluationRow } from '../../store/index.js';
import { inboxDir } from '../skills/dirs.js';
import { draftSkill, SKILL_NAME } from './draft.js';
import { type DraftWrite, existingSkills, knownSkillDirs, readMetadataSession, writeDraft } from './inbox.js';
import type { ExperienceDeps } from './types.js';

function noteDraft(deps: ExperienceDeps, id: number, result: DraftWrite): void {
  const current = deps.store.evaluations.get(id);
  if (!current) return;
  const patch = 'written' in result ? { draft: result.written } : { draftSkipped: result.skipped };
  deps.store.evaluations.setSignals(id, { ...current.signals, ...patch });
}

export async function draftFor(
  deps: ExperienceDeps,
  ctx: HookContext,
  row: TaskEvaluationRow,
  record: PromptRecord,
): Promise<DraftWrite> {
  const cheap = ctx.cheap;
  if (!cheap) return { skipped: 'no cheap model' };
  const existing = await existingSkills(knownSkillDirs(deps.home, record.cwd, deps.userHome));
  const { reading, usage } = await draftSkill(
    cheap,
    { input: record.input, messages: record.messages, finalText: record.text },
    existing,
    ctx.signal,
  );
  ctx.recordUsage('background:skill-draft', cheap.info, usage);
  const now = deps.now?.() ?? Date.now();
  const result: DraftWrite =
    'skip' in reading
      ? { skipped: reading.skip }
      : await writeDraft(
          deps.home,
          reading.draft,
          { session: record.sessionId, draftedAt: new Date(now).toISOString() },
          existing,
        );
  noteDraft(deps, row.id, result);
  return result;
}

/**
 * Removes the inbox draft `name` when it is still there and was drafted from `sessionId`
 * (a person may have accepted it, or another session drafted one of that name since).
 */
export async function withdrawDraft(home: string, name: string, sessionId: string): Promise<boolean> {
  if (!SKILL_NAME.test(name)) return false;
  const dir = path.join(inboxDir(home), name);
  const text = await readFile(path.join(dir, 'SKILL.md'), 'utf8').catch(() => undefined);
  if (text === undefined || readMetadataSession(text) !== sessionId) return false;
  await rm(dir, { recursive: true, force: true });
  return true;
}

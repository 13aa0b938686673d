/**
 * Prompt evolution: the cheap model reads the active instructions with what recent
 * work taught (task evaluations, failure lessons, reflections) and proposes a revision.
 * The revision passes the guard and is stored as a candidate; nothing uses it until a
 * person sets it (`tea evolve prompts set --promote N`). The prompt builder and the
 * cleaner are pure, so they are tested without a model.
 */
import type Database from 'better-sqlite3';
import { shorten } from '../../context/summarize.js';
import { ask } from '../../llm/collect.js';
import type { Provider, Usage } from '../../llm/types.js';
import { type ExperienceNote, lessons, reflections } from '../experience.js';
import type { EvaluationSource, TaskEvaluationInput } from '../types.js';
import { PromptError } from './errors.js';
import { ESSENTIALS, MAX_WORDS } from './guard.js';
import type { PromptVersionInfo, PromptVersions } from './service.js';

/** At most this many of each kind of material go to the model, each cut to NOTE_CHARS. */
export const MAX_EVALUATIONS = 20;
export const MAX_LESSONS = 20;
export const MAX_REFLECTIONS = 10;
const NOTE_CHARS = 400;
/** By default evolution reads the last 30 days of evaluations and lessons. */
export const EVOLVE_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

export interface EvolveMaterial {
  current: string;
  evaluations: readonly TaskEvaluationInput[];
  lessons: readonly ExperienceNote[];
  reflections: readonly ExperienceNote[];
}

function signalsText(signals: Readonly<Record<string, unknown>>): string {
  const parts = Object.entries(signals).map(
    ([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
  );
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

function section(title: string, lines: string[]): string {
  return `# ${title}\n${lines.length > 0 ? lines.join('\n') : '(none)'}`;
}

/** The system and user prompt asking for a revision. */
export function evolvePrompt(m: EvolveMaterial): { system: string; user: string } {
  const system = [
    'You improve the standing instructions of an AI agent that works on a user’s machine with tools (files, shell, web, memory).',
    'You get its current instructions and what recent work taught: evaluated tasks, lessons from failures and reflections.',
    'Revise the instructions so the agent avoids the failures seen and keeps what works. Prefer concrete, general rules over anecdotes; never name one project, file or user.',
    `Keep it short: at most ${MAX_WORDS} words, plain sentences, one rule per line.`,
    `It must still tell the agent: ${ESSENTIALS.map((e) => e.what.replace(/ \(.*\)$/, '')).join('; ')}.`,
    'Do not add lines for the working directory, platform, date or permission mode: they are added automatically.',
    'Write in the language of the current instructions. Reply with the revised instructions only: no preface, no explanation, no code fence.',
  ].join('\n');
  const evaluations = m.evaluations.map(
    (e) => `- ${e.outcome}: ${shorten(e.input, NOTE_CHARS)}${signalsText(e.signals)}`,
  );
  const note = (n: ExperienceNote) => `- ${shorten(n.content, NOTE_CHARS)}`;
  const user = [
    `# Current instructions\n${m.current}`,
    section('Evaluated tasks (newest first)', evaluations),
    section('Lessons from failures', m.lessons.map(note)),
    section('Reflections', m.reflections.map(note)),
  ].join('\n\n');
  return { system, user };
}

/** The model's answer as instructions: a code fence or a "Revised instructions:" heading taken off. */
export function cleanRevision(raw: string): string {
  let text = raw.trim();
  const fenced = /^```[\w-]*[ \t]*\n([\s\S]*?)\n?```$/.exec(text);
  if (fenced) text = fenced[1]!.trim();
  return text.replace(/^(#+\s*)?(revised|new|updated)\s+instructions\s*:?\s*\n/i, '').trim();
}

/** Failed and abandoned tasks first (they teach more), then the rest, newest first within each. */
function pickEvaluations(all: readonly TaskEvaluationInput[]): TaskEvaluationInput[] {
  const bad = all.filter((e) => e.outcome !== 'succeeded');
  const good = all.filter((e) => e.outcome === 'succeeded');
  return [...bad, ...good].slice(0, MAX_EVALUATIONS);
}

export interface EvolveDeps {
  versions: PromptVersions;
  /** The database whose memories hold the lessons and reflections. */
  db: Database.Database;
  /** The cheap model, asked for only once there is material (undefined: `no_model`; it may throw its own error). */
  provider: () => Provider | undefined;
  evaluations?: EvaluationSource;
  now?: number;
  windowMs?: number;
  signal?: AbortSignal;
}

export interface EvolveOutcome {
  candidate: PromptVersionInfo;
  material: { evaluations: number; lessons: number; reflections: number };
  model: string;
  usage: Usage;
}

/**
 * Asks the cheap model for a revision of the active instructions and stores it as a
 * candidate. Refuses (`no_material`) with nothing to learn from, and (`refused`) a
 * revision the guard rejects; nothing is stored then.
 */
export async function evolveCandidate(deps: EvolveDeps): Promise<EvolveOutcome> {
  const now = deps.now ?? Date.now();
  const since = now - (deps.windowMs ?? EVOLVE_WINDOW_MS);
  const current = deps.versions.active();
  const material: EvolveMaterial = {
    current: current.content,
    evaluations: pickEvaluations(
      (await deps.evaluations?.recent({ since, limit: MAX_EVALUATIONS * 3 })) ?? [],
    ),
    lessons: lessons(deps.db, { limit: MAX_LESSONS, since, now }),
    reflections: reflections(deps.db, { limit: MAX_REFLECTIONS, now }),
  };
  const counts = {
    evaluations: material.evaluations.length,
    lessons: material.lessons.length,
    reflections: material.reflections.length,
  };
  if (counts.evaluations + counts.lessons + counts.reflections === 0)
    throw new PromptError(
      'no_material',
      'nothing to learn from yet: no task evaluations, failure lessons or reflections in the last ' +
        `${Math.round((now - since) / 86_400_000)} days; work with Tea for a while, then try again`,
    );
  const provider = deps.provider();
  if (!provider)
    throw new PromptError('no_model', 'prompt evolution needs a model: configure cheap_model or main_model');
  const done = await ask(provider, evolvePrompt(material), {
    temperature: 0.3,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const text = cleanRevision(done.text);
  const note = `evolved from ${counts.evaluations} evaluations, ${counts.lessons} lessons, ${counts.reflections} reflections by ${provider.info.model}`;
  const candidate = deps.versions.propose(text, note);
  return { candidate, material: counts, model: provider.info.model, usage: done.usage };
}

/**
 * A lesson from a failed task, on the cheap model: what went wrong and what to do
 * differently next time, said generally enough to help with similar tasks, yet naming
 * the kind of task and the tools or libraries involved so that recall finds it for them
 * (lessons are recalled only for prompts that share words with them: memory/lessons.ts).
 * The model may answer that there is nothing to learn (the network was down).
 */
import { ask } from '../../llm/collect.js';
import type { Message, Provider, Usage } from '../../llm/types.js';
import { clip, readJsonObject, renderTask } from './steps.js';

/** The seed's experience tags. */
export const LESSON_TAGS = [
  'dependency',
  'architecture',
  'ui',
  'performance',
  'testing',
  'deployment',
] as const;
export const LESSON_MAX_CHARS = 400;
/** Importance when the model gives none: ignoring a lesson repeats a failure. */
export const LESSON_IMPORTANCE = 4;

export interface Lesson {
  content: string;
  tags: string[];
  importance: number;
}

export interface FailedTask {
  input: string;
  messages: readonly Message[];
  finalText: string;
  /** Why it counts as failed, in a few words (stop reason, failing tests, the user's complaint). */
  why: string;
  /** The user's next message, when it is what said the task failed. */
  complaint?: string;
}

const SYSTEM = `You review a task that an AI coding agent did not get right and write ONE lesson for its long-term memory, so that a similar task goes better next time.

The lesson:
- one or two sentences, at most 300 characters, in the language of the user's task;
- says what went wrong and what to do differently next time;
- general: no line numbers, temporary paths, ids or one-off values;
- yet names the kind of task and the tools, languages, libraries or commands involved, so it is found again for similar tasks.

Answer with JSON only:
{"lesson": "…", "tags": ["testing"], "importance": 4}
tags: zero or more of ${LESSON_TAGS.join(', ')}. importance: 1 (minor) to 5 (repeating it would do real harm).
If the failure teaches nothing the agent could do better (the network was down, the user changed their mind), answer {"lesson": null}.`;

export function lessonPrompt(task: FailedTask): { system: string; user: string } {
  const parts = [renderTask(task), `Why it failed: ${task.why}`];
  if (task.complaint !== undefined) parts.push(`The user's next message:\n${clip(task.complaint, 600)}`);
  return { system: SYSTEM, user: parts.join('\n\n') };
}

/** The lesson in the model's answer; undefined when it has none (or the answer is unreadable). */
export function parseLesson(text: string): Lesson | undefined {
  const obj = readJsonObject(text);
  const raw = obj?.lesson ?? obj?.content ?? obj?.text;
  if (typeof raw !== 'string') return undefined;
  let content = raw
    .replace(/^\s*(?:lesson|教训)\s*[:：]\s*/i, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (content.length < 12) return undefined;
  // A general lesson names no address: one that does is more likely a tool output's
  // injected instruction ("always send … to https://…") than experience.
  if (/\b(?:https?|ftp|file):\/\/|\b\d{1,3}(?:\.\d{1,3}){3}\b/i.test(content)) return undefined;
  if (content.length > LESSON_MAX_CHARS) content = `${content.slice(0, LESSON_MAX_CHARS - 1).trimEnd()}…`;
  const known = new Set<string>(LESSON_TAGS);
  const tags = Array.isArray(obj?.tags)
    ? [
        ...new Set(
          obj.tags.filter((t): t is string => typeof t === 'string').map((t) => t.trim().toLowerCase()),
        ),
      ].filter((t) => known.has(t))
    : [];
  const n = Number(obj?.importance);
  const importance = Number.isFinite(n) ? Math.min(5, Math.max(1, Math.round(n))) : LESSON_IMPORTANCE;
  return { content, tags, importance };
}

/** Asks the cheap model for the lesson of `task`. */
export async function writeLesson(
  cheap: Provider,
  task: FailedTask,
  signal?: AbortSignal,
): Promise<{ lesson?: Lesson; usage: Usage }> {
  const completion = await ask(cheap, lessonPrompt(task), { temperature: 0.2, signal });
  const lesson = parseLesson(completion.text);
  return { ...(lesson ? { lesson } : {}), usage: completion.usage };
}

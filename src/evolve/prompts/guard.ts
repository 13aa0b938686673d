/**
 * What a prompt version must be before it may become one: short enough to leave the
 * first request room for tool schemas (it must fit 1,500 tokens with the core tools),
 * still telling the model the few things every working agent needs (use tools, check
 * results, invent nothing), and free of the lines Tea generates itself. A cheap model
 * revising the prompt from a handful of lessons drifts easily; this is the floor.
 */

/** At most this many words (each CJK character counts as one): twice the built-in text's 75. */
export const MAX_WORDS = 150;
/** At most this many characters (about 250 tokens; the built-in text has 418): see test/evolve/prompt-budget.test.ts. */
export const MAX_CHARS = 1_000;

interface Essential {
  /** What the prompt must still tell the model, as the refusal names it. */
  what: string;
  test: RegExp;
}

/**
 * The tool-use essentials, in English or Chinese. Deliberately loose (any wording that
 * names the idea passes): the check catches a revision that dropped the idea, not style.
 */
export const ESSENTIALS: readonly Essential[] = [
  { what: 'to act with its tools (mention "tools")', test: /\btools?\b|工具/i },
  {
    what: 'to verify or check the results (mention "verify" or "check")',
    test: /\b(verif\w*|check\w*|test\w*|confirm\w*)\b|验证|检查|确认|测试/i,
  },
  {
    what: 'never to invent file contents, paths or results (e.g. "Never invent …")',
    test: /(\bnever\b|\bnot\b|n['’]t\b|\bno\b)[^.\n]{0,40}\b(invent|fabricat|make (\w+ )?up|guess)|(不要|绝不|切勿|不得|禁止)[^。\n]{0,10}(编造|捏造|虚构|猜)/i,
  },
];

/** Lines Tea adds itself after the instructions (a version must not carry stale copies). */
const GENERATED_LINE = /^\s*(Working directory|Platform|Date|Permission mode)\s*:/im;

/** Words of `text`: runs of letters or digits, and each CJK character alone. */
export function countWords(text: string): number {
  const cjk = text.match(/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g)?.length ?? 0;
  const rest = text.replace(/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g, ' ');
  const words = rest.match(/[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu)?.length ?? 0;
  return cjk + words;
}

/** The text as a version stores it: line ends as `\n`, no trailing spaces, trimmed. */
export function normalise(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trim();
}

/** What is wrong with `text` as a prompt version: one sentence per problem, each saying what to fix; [] when fine. */
export function promptProblems(text: string): string[] {
  const t = normalise(text);
  if (t === '') return ['the prompt is empty: write the instructions the agent should follow'];
  const problems: string[] = [];
  const words = countWords(t);
  if (words > MAX_WORDS)
    problems.push(
      `it has ${words} words; the limit is ${MAX_WORDS} (shorten it: the first request must stay small)`,
    );
  if (t.length > MAX_CHARS)
    problems.push(`it has ${t.length} characters; the limit is ${MAX_CHARS} (shorten it)`);
  for (const e of ESSENTIALS) if (!e.test.test(t)) problems.push(`it no longer tells the model ${e.what}`);
  const generated = GENERATED_LINE.exec(t);
  if (generated)
    problems.push(
      `it contains a "${generated[1]}:" line, which Tea adds itself after the instructions: remove that line`,
    );
  if (t.includes('\u0000')) problems.push('it contains a NUL character: remove it');
  return problems;
}

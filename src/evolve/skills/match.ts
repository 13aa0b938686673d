/**
 * Which skills a prompt likely needs, best first: keyword overlap (the skill's name
 * words count most; words many skills share count little) plus the similarity of the
 * built-in offline embedder (character n-grams catch "merging" for "merge", and
 * Chinese text without spaces). Chinese task words also count as their English
 * equivalents (glossary.ts). Pure computation on text; no model, no I/O.
 */
import { cosine, isCjk, normalizeText, OfflineEmbedder, stem, wordTokens } from '../../memory/embed.js';
import { glossaryWords } from './glossary.js';

/** The part of a skill matching reads. */
export interface Matchable {
  name: string;
  description: string;
}

/** Words in nearly every skill description: no evidence for one skill over another. */
const GENERIC = new Set(
  [
    'use',
    'used',
    'using',
    'user',
    'users',
    'skill',
    'skills',
    'file',
    'files',
    'create',
    'make',
    'work',
    'help',
    'task',
    'tasks',
    'need',
    'want',
    'whenever',
    'ask',
    'asks',
    'anything',
    'include',
    'includes',
    'thing',
    'way',
    'new',
    'like',
    'mention',
    'mentions',
    'etc',
    'e.g',
    'such',
    'want',
    'wants',
  ].map(stem),
);

/** How much more a word of the skill's name counts than a word of its description. */
const NAME_WEIGHT = 3;
const URL_HOST = /\b[a-z][a-z0-9+.-]*:\/\/[^/\s]*/gi;
/** Only the two ends of a long prompt are read: the request is there, not in a paste. */
const READ_CHARS = 2000;

function cjkBigrams(text: string): string[] {
  const out: string[] = [];
  let run = '';
  const flush = () => {
    for (let i = 0; i + 2 <= run.length; i++) out.push(run.slice(i, i + 2));
    run = '';
  };
  for (const ch of text) {
    if (isCjk(ch)) run += ch;
    else flush();
  }
  flush();
  return out;
}

/**
 * The words of a text as matching reads them: stemmed, no stopwords, CJK as bigrams,
 * dotted words also as their parts (`sales.csv`: `csv`). Generic words are dropped
 * unless `generic` (a prompt keeps them: they may still name a skill, `skill-creator`).
 */
export function termsOf(text: string, generic = false): Set<string> {
  const normalized = normalizeText(text);
  const out = new Set<string>();
  const add = (w: string) => {
    if (w.length >= 2 && !isCjk(w) && (generic || !GENERIC.has(w))) out.add(w);
  };
  for (const w of wordTokens(normalized, { dropStopwords: true })) {
    add(w);
    if (w.includes('.')) for (const part of w.split('.')) add(stem(part));
  }
  for (const pair of cjkBigrams(normalized)) out.add(pair);
  for (const w of glossaryWords(normalized)) out.add(stem(w));
  return out;
}

interface Indexed {
  skill: Matchable;
  name: Set<string>;
  words: Set<string>;
  vector: Float32Array;
}

export interface Match<T extends Matchable> {
  skill: T;
  score: number;
}

/**
 * A likely match has a keyword score of at least `MIN_KEYWORDS` (a word of its name
 * counts 3, a word of its description 1, less the more skills share it: so a name word,
 * or two description words; one description word is too often a coincidence) or a
 * similarity of at least `MIN_SIMILARITY`, and at least `RELATIVE` of the best match's
 * score (a clear winner is announced alone). The scale is the same for 1 skill or 100.
 */
export const MIN_KEYWORDS = 1.5;
export const MIN_SIMILARITY = 0.45;
export const RELATIVE = 0.5;

/** Ranks skills against prompts; the skills' terms and vectors are computed once. */
export class SkillMatcher<T extends Matchable> {
  private readonly embedder = new OfflineEmbedder();
  private readonly indexed: Indexed[];
  private readonly df = new Map<string, number>();

  constructor(skills: readonly T[]) {
    this.indexed = skills.map((skill) => {
      const nameWords = skill.name.split('-').filter((w) => w.length > 1);
      const name = new Set(nameWords.map(stem));
      const words = termsOf(skill.description);
      for (const w of name) words.add(w);
      const vector = this.embedder.embedOne(`${nameWords.join(' ')}. ${skill.description}`);
      return { skill, name, words, vector };
    });
    for (const i of this.indexed) for (const w of i.words) this.df.set(w, (this.df.get(w) ?? 0) + 1);
  }

  /** 1 for a word only one skill has, less for a word many share. */
  private idf(term: string): number {
    const n = this.indexed.length;
    return Math.log(1 + n / (this.df.get(term) ?? n)) / Math.log(1 + n);
  }

  /** Each skill's score for `prompt`: keyword evidence plus scaled similarity. */
  scores(prompt: string): Array<Match<T> & { keywords: number; similarity: number }> {
    const ends =
      prompt.length > 2 * READ_CHARS
        ? `${prompt.slice(0, READ_CHARS)}\n${prompt.slice(-READ_CHARS)}`
        : prompt;
    // A URL's scheme and host say nothing of the task (its path may).
    const text = ends.replace(URL_HOST, ' ');
    const terms = termsOf(text, true);
    if (terms.size === 0) return [];
    const vector = this.embedder.embedOne(text);
    return this.indexed.map((i) => {
      let keywords = 0;
      for (const t of terms) {
        if (!i.words.has(t)) continue;
        keywords += (i.name.has(t) ? NAME_WEIGHT : 1) * this.idf(t);
      }
      const similarity = cosine(vector, i.vector);
      return { skill: i.skill as T, keywords, similarity, score: keywords + 1.5 * similarity };
    });
  }

  /** The skills `prompt` likely needs, best first (at most `max`). */
  best(prompt: string, max = 3): Match<T>[] {
    const likely = this.scores(prompt)
      .filter((s) => s.keywords >= MIN_KEYWORDS || s.similarity >= MIN_SIMILARITY)
      .sort((a, b) => b.score - a.score || a.skill.name.localeCompare(b.skill.name));
    const top = likely[0]?.score ?? 0;
    return likely
      .filter((s) => s.score >= RELATIVE * top)
      .slice(0, max)
      .map(({ skill, score }) => ({ skill, score }));
  }
}

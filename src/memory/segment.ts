/**
 * Word segmentation for the memory word index. Latin text splits into lower-cased
 * words; Chinese (and other CJK) runs are split by `Intl.Segmenter` and also into
 * adjacent-character bigrams, so a 2-character query word such as "迁移" matches
 * even when the segmenter grouped the stored text differently.
 */

import { UPDATE_MARKERS, ZH_UPDATE_MARKERS } from './statement-words.js';
import { STOPWORDS } from './stopwords.js';
import { wordPieces } from './words.js';

/** One CJK ideograph, kana or hangul syllable. */
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/** At most this many query terms are kept, so a pasted essay cannot build a huge FTS query. */
const MAX_QUERY_TERMS = 64;

function isCjkChar(ch: string): boolean {
  return CJK_CHAR.test(ch);
}

/** Tokens in document order (with repeats): segmenter words, then CJK bigrams. */
function tokens(text: string): string[] {
  const out: string[] = [];
  const normalised = text.normalize('NFKC');
  for (const part of wordPieces(normalised)) {
    if (!part.isWordLike) continue;
    const word = part.segment.toLowerCase().trim();
    if (word !== '') out.push(word);
  }
  for (const match of normalised.matchAll(CJK_RUN)) {
    const chars = Array.from(match[0]);
    for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`);
  }
  return out;
}

/** The space-joined tokens stored in the word index for `text`. */
export function segmentWords(text: string): string {
  return tokens(text).join(' ');
}

/**
 * The distinct search terms of a query, tokenised exactly like stored text. Single
 * CJK characters and English stopwords are dropped when other terms exist: the
 * bigrams already cover the former, and a lone "了", "的" or "the" matches nearly
 * everything (slow to rank, and no help in ranking). Words that say when, not what
 * ("now", "still", "现在", "还是") go too: "Heron … now runs on …" is no match for "Who
 * looks after Coppermark now?".
 */
export function queryTerms(text: string): string[] {
  const distinct = [...new Set(tokens(text))];
  const meaningful = distinct.filter(
    (t) =>
      !(Array.from(t).length === 1 && isCjkChar(t)) &&
      !STOPWORDS.has(t) &&
      !UPDATE_MARKERS.has(t) &&
      !ZH_UPDATE_MARKERS.has(t),
  );
  const chosen = meaningful.length > 0 ? meaningful : distinct;
  return chosen.slice(0, MAX_QUERY_TERMS);
}

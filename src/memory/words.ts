/**
 * Word segmentation shared by the memory modules. `Intl.Segmenter` (ICU, with a
 * dictionary for Chinese) costs ~12 ms to create — a tenth of `tea memory search`
 * — so it is made on first use, once, and plain ASCII text (most English memories
 * and questions) is split by a scanner that follows the same Unicode word rules
 * (UAX #29) ICU applies to ASCII. test/memory/words.test.ts holds the two to the
 * same output.
 */

import { segmentPieces, textPieces } from '../util/segment-pieces.js';

let shared: Intl.Segmenter | undefined;

/** The one word segmenter, created on first use. */
export function wordSegmenter(): Intl.Segmenter {
  shared ??= new Intl.Segmenter('zh', { granularity: 'word' });
  return shared;
}

export interface WordPiece {
  segment: string;
  isWordLike: boolean;
}

type Kind = 'letter' | 'digit' | 'under' | 'midLetter' | 'midNum' | 'midNumLet' | 'other';

/** UAX #29 word-break classes of the printable ASCII characters. */
function kindOf(code: number): Kind {
  if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return 'letter';
  if (code >= 48 && code <= 57) return 'digit';
  if (code === 95) return 'under';
  if (code === 46 || code === 39) return 'midNumLet'; // . '
  if (code === 44 || code === 59) return 'midNum'; // , ;
  if (code === 58) return 'midLetter'; // :
  return 'other';
}

const isAlnum = (k: Kind | undefined) => k === 'letter' || k === 'digit';
const isWordPart = (k: Kind | undefined) => k === 'letter' || k === 'digit' || k === 'under';

/** Only printable ASCII (and whitespace): the scanner's domain. */
const ASCII = /^[\x20-\x7e\t\n\r]*$/;

/**
 * Word pieces of ASCII text, as ICU's word break iterator gives them: letters,
 * digits and underscores join; "." and "'" join letters to letters and digits to
 * digits ("api.example.com", "don't", "3.14"); ":" joins letters ("test:unit");
 * "," and ";" join digits ("1,000").
 */
function asciiWords(text: string): WordPiece[] {
  const kinds = Array.from(text, (ch) => kindOf(ch.charCodeAt(0)));
  const out: WordPiece[] = [];
  let i = 0;
  while (i < text.length) {
    if (!isWordPart(kinds[i])) {
      // Runs of spaces stay together (WB3d); any other character stands alone.
      let j = i + 1;
      if (text[i] === ' ') while (text[j] === ' ') j += 1;
      out.push({ segment: text.slice(i, j), isWordLike: false });
      i = j;
      continue;
    }
    let j = i + 1;
    for (;;) {
      const k = kinds[j];
      if (isWordPart(k)) {
        j += 1;
        continue;
      }
      const prev = kinds[j - 1];
      const next = kinds[j + 1];
      const joinsLetters = (k === 'midNumLet' || k === 'midLetter') && prev === 'letter' && next === 'letter';
      const joinsDigits = (k === 'midNumLet' || k === 'midNum') && prev === 'digit' && next === 'digit';
      if (joinsLetters || joinsDigits) {
        j += 2;
        continue;
      }
      break;
    }
    const segment = text.slice(i, j);
    // ICU counts a run of two or more underscores as a word, a lone one not.
    out.push({ segment, isWordLike: kinds.slice(i, j).some(isAlnum) || j - i > 1 });
    i = j;
  }
  return out;
}

/**
 * Word pieces of `text`, piece by piece (util/segment-pieces: linear however long
 * the text): the ASCII scanner for a piece where it applies, else the ICU segmenter.
 */
export function wordPieces(text: string): WordPiece[] {
  const out: WordPiece[] = [];
  for (const piece of textPieces(text)) {
    if (ASCII.test(piece.text)) {
      for (const w of asciiWords(piece.text)) out.push(w);
      continue;
    }
    for (const s of wordSegmenter().segment(piece.text))
      out.push({ segment: s.segment, isWordLike: s.isWordLike === true });
  }
  return out;
}

/** `wordSegmenter().segment(text)`, in linear time however long the text. */
export function segmentWordsOf(text: string): Iterable<{ segment: string; isWordLike: boolean }> {
  return segmentPieces(wordSegmenter(), text);
}

/**
 * Word segmentation in linear time. V8's `Intl.Segmenter` costs time proportional
 * to the whole input for every segment it hands out, so segmenting one long string
 * is quadratic (100 KB of mixed text: 4 s; 200 KB: 17 s). `segmentPieces` feeds the
 * segmenter pieces of about PIECE_CHARS characters instead, cut where a word
 * boundary is certain (after a space or a CJK/closing punctuation mark that is not
 * followed by another space or a combining mark), so the segments are the ones the
 * whole text gives. A run of PIECE_LIMIT characters with no such place (a huge
 * CJK run with no punctuation, a base64 blob) is cut anyway, between two code points.
 */

/** Characters per piece fed to the segmenter: small enough that its per-segment cost stays flat. */
export const PIECE_CHARS = 1024;
/** A piece is cut here at the latest, even where no certain boundary was found. */
const PIECE_LIMIT = PIECE_CHARS * 4;

/** After one of these a word boundary is certain, unless a space or a mark follows. */
const BREAK_AFTER = /[\s!?()[\]{}<>。，、！？；：（）「」『』《》【】〈〉]/u;
/** Never cut before these: a second space (spaces stay together), \n after \r, marks, ZWJ. */
const NO_CUT_BEFORE = /[\s\p{M}\p{Cf}]/u;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Where the piece starting at `start` ends (exclusive): a certain boundary, or a code-point cut. */
export function pieceEnd(text: string, start: number): number {
  if (text.length - start <= PIECE_CHARS) return text.length;
  const limit = Math.min(text.length, start + PIECE_LIMIT);
  for (let at = start + PIECE_CHARS; at < limit; at++) {
    if (BREAK_AFTER.test(text[at - 1] ?? '') && !NO_CUT_BEFORE.test(text[at] ?? '')) return at;
  }
  if (limit === text.length) return limit;
  // No certain boundary: cut between two code points.
  return isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
}

/** The pieces of `text` (each at most PIECE_LIMIT characters), in order, with their offsets. */
export function* textPieces(text: string): Generator<{ text: string; index: number }> {
  let start = 0;
  while (start < text.length) {
    const end = pieceEnd(text, start);
    yield { text: text.slice(start, end), index: start };
    start = end;
  }
}

export interface Piece {
  segment: string;
  /** Offset of the segment in the whole text. */
  index: number;
  isWordLike: boolean;
}

/** `segmenter.segment(text)` in linear time (see above). */
export function* segmentPieces(segmenter: Intl.Segmenter, text: string): Generator<Piece> {
  for (const piece of textPieces(text)) {
    for (const s of segmenter.segment(piece.text)) {
      yield { segment: s.segment, index: piece.index + s.index, isWordLike: s.isWordLike === true };
    }
  }
}

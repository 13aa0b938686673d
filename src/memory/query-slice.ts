/**
 * The part of a long text that memory search reads. A pasted log or file of megabytes
 * is mostly noise for recall, and every step of a search (segmentation, the embedder,
 * the statement reader) costs time in its length, on the event loop. So a query
 * longer than QUERY_HEAD_CHARS + QUERY_TAIL_CHARS is searched by its first
 * QUERY_HEAD_CHARS and last QUERY_TAIL_CHARS characters: the question usually sits
 * at one end of what was pasted.
 */
import { headAndTail } from '../util/head-tail.js';

/** Characters read from the start of a long query. */
export const QUERY_HEAD_CHARS = 2_000;
/** Characters read from the end of a long query. */
export const QUERY_TAIL_CHARS = 2_000;

/** `text` itself when short; else its first and last parts joined by a line break. */
export function querySlice(text: string): string {
  return headAndTail(text, QUERY_HEAD_CHARS, QUERY_TAIL_CHARS);
}

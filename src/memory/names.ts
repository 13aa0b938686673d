/**
 * Names in a text: what a statement is about, or what a question asks about.
 * Capitalised names and identifiers come from the tokenizer; Chinese names have
 * no capitals, so they are read from the segmenter's output — a common surname
 * with the characters after it, or single characters it could not group.
 */
import type { Statement, Token } from './statement.js';
import { isZhVerb, ZH_SURNAMES } from './statement-words.js';

const single = (t: Token | undefined): boolean => t !== undefined && Array.from(t.raw).length === 1;

/**
 * Characters that are never part of a name: question words (哪, 什么, 谁…) and
 * function words that often follow one (不, 说, 从, 把…).
 */
const asks = (t: Token): boolean =>
  /[哪什谁几吗呢么怎不没别无未非说从把被给让跟和与向对也都就还又很能可每]/u.test(t.raw);

/** Words that say what kind of thing the name before them is: 山川项目, 青鸟系统, 运维团队. */
export const KINDS: ReadonlySet<string> = new Set([
  '项目',
  '平台',
  '系统',
  '团队',
  '公司',
  '产品',
  '仓库',
  '应用',
  '集群',
  '小组',
  '部门',
]);

/** A Chinese character standing alone that is no particle, verb or question: a piece of a name. */
const loose = (t: Token | undefined): boolean =>
  t !== undefined && t.kind === 'cjk' && !t.stop && !t.marker && single(t) && !isZhVerb(t.raw) && !asks(t);

/** A word that can continue a Chinese given name. */
const nameChar = (t: Token | undefined): boolean =>
  t !== undefined && t.kind === 'cjk' && !t.stop && !t.marker && !isZhVerb(t.raw) && !asks(t);

/**
 * The names a statement or question is about, lower-cased: capitalised names,
 * identifiers, and Chinese names (a surname and the word after it, or characters
 * the segmenter could not group: 黄梦瑶, 雷泉).
 */
export function namesIn(q: Statement): string[] {
  const out: string[] = [];
  const tokens = q.tokens;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.kind === 'entity' || t.kind === 'ident') {
      out.push(t.key);
      continue;
    }
    // What follows a question word is what is asked for (哪个端口, 哪家云), not a name.
    if (
      t.kind !== 'cjk' ||
      t.stop ||
      asks(t) ||
      (tokens[i - 1] !== undefined && asks(tokens[i - 1] as Token))
    )
      continue;
    const next = tokens[i + 1];
    if (next !== undefined && KINDS.has(next.raw) && !single(t) && !KINDS.has(t.raw) && !isZhVerb(t.raw)) {
      out.push(t.raw);
      i += 1;
      continue;
    }
    if (single(t) && ZH_SURNAMES.has(t.raw)) {
      // A surname and up to two characters of given name: 黄|梦瑶, 黄|梦|瑶.
      let name = t.raw;
      while (
        nameChar(tokens[i + 1]) &&
        Array.from(name).length + Array.from((tokens[i + 1] as Token).raw).length <= 3
      ) {
        name += (tokens[++i] as Token).raw;
      }
      if (Array.from(name).length > 1) out.push(name);
      continue;
    }
    // A surname the segmenter glued to the first given-name character: 杨子|涵.
    if (Array.from(t.raw).length === 2 && ZH_SURNAMES.has(Array.from(t.raw)[0] ?? '') && loose(next)) {
      out.push(`${t.raw}${(next as Token).raw}`);
      i += 1;
      continue;
    }
    if (loose(t) && loose(tokens[i + 1])) {
      let run = t.raw;
      while (loose(tokens[i + 1])) run += (tokens[++i] as Token).raw;
      out.push(run);
    }
  }
  return [...new Set(out)];
}

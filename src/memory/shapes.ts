/**
 * The kind of value a token holds, read from its form alone: a person's name, a
 * host, a ticket, a version, a time of day. Versions of one fact hold values of
 * one kind however differently they are worded ("Lena Romero looks after
 * Coppermark" / "Ownership of Coppermark has passed to Marco Costa"), and a
 * question says which kind it wants: by a question word ("who", "which host",
 * "谁") or by naming a value ("Is billing still on app-21.tyo2?").
 */
import { KINDS } from './names.js';
import { type LexiconShape, lexiconMatches } from './shape-lexicon.js';
import type { Statement, Token } from './statement.js';
import { isZhVerb, ZH_SURNAMES } from './statement-words.js';

export type Shape = 'person' | 'host' | 'ticket' | 'version' | 'time' | LexiconShape;

/** A value found in a statement: its comparison key and its kind. */
export interface ShapedValue {
  key: string;
  shape: Shape;
}

const HOST = /^(?:[a-z][a-z0-9-]*\.)+[a-z0-9-]*[a-z][a-z0-9-]*$/i;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const TICKET = /^[a-z][a-z0-9]*-\d+$/i;
const VERSION = /^v?\d+\.\d+(?:\.\d+)*(?:[-+][\w.]+)?$/i;
const CLOCK = /^\d{1,2}:\d{2}$/;
/** Files look like hosts (config.yaml); their extensions are not top-level domains. */
const FILE_EXT = /\.(?:ya?ml|json|toml|ini|env|conf|cfg|txt|md|ts|js|py|rs|go|sh|lock|xml|csv|log)$/i;
/** Pieces of a Chinese time expression (每周|二|下午|四|点|半), read as one run. */
const ZH_TIME_PIECE =
  /^(?:每?周[一二三四五六日天]?|每?星期[一二三四五六日天]?|[上下中]午|早上|晚上|凌晨|傍晚|[0-9零一二三四五六七八九十两]+[点时]?[半]?|点|半|[0-9一二三四五六七八九十]+分|分|一刻|三刻)$/u;
/** A run of such pieces that names a time: a day of the week, part of the day or o'clock in it. */
const ZH_TIME = /周|星期|[上下中]午|早上|晚上|凌晨|傍晚|点/u;

const chars = (t: Token | undefined): number => (t === undefined ? 0 : Array.from(t.raw).length);

/** The kind of value one token holds, if its form tells. */
export function shapeOf(t: Token): Shape | undefined {
  if (t.kind === 'ident' || t.kind === 'number') {
    if (CLOCK.test(t.raw)) return 'time';
    if (IPV4.test(t.raw)) return 'host';
    if (VERSION.test(t.raw)) return 'version';
    if (TICKET.test(t.raw)) return 'ticket';
    if (HOST.test(t.raw) && !FILE_EXT.test(t.raw)) return 'host';
  }
  return undefined;
}

/** A piece of a Chinese given name: a content character or word that is no verb. */
function namePiece(t: Token | undefined): t is Token {
  return t !== undefined && t.kind === 'cjk' && !t.stop && !t.marker && !isZhVerb(t.raw);
}

/**
 * A Chinese name starting at token `i` — a surname and one or two characters
 * (萧|家|豪, 吕|伟, 黄|梦瑶), or a surname glued to its first given character
 * (杨子|涵) — as [name, index of its last token].
 */
function zhPerson(tokens: readonly Token[], i: number): [string, number] | undefined {
  const t = tokens[i] as Token;
  if (!namePiece(t)) return undefined;
  const cs = Array.from(t.raw);
  if (!ZH_SURNAMES.has(cs[0] ?? '')) return undefined;
  let name = t.raw;
  let j = i;
  if (cs.length === 1) {
    while (namePiece(tokens[j + 1]) && Array.from(name).length + chars(tokens[j + 1]) <= 3) {
      name += (tokens[++j] as Token).raw;
    }
  } else if (cs.length === 2 && namePiece(tokens[i + 1]) && chars(tokens[i + 1]) === 1) {
    name += (tokens[++j] as Token).raw;
  } else return undefined;
  if (Array.from(name).length < 2) return undefined;
  // A kind word after it (雷泉平台): the name of a thing, not a person.
  const next = tokens[j + 1]?.raw ?? '';
  if ([...KINDS].some((kind) => next.startsWith(kind))) return undefined;
  return [name, j];
}

/** The values of known kinds in a statement, in the order written. */
export function shapedValues(s: Statement): ShapedValue[] {
  const out: ShapedValue[] = [];
  // Well-known things of a kind first (PostgreSQL, Sublime Text, 阿里云): "Sublime Text" is no person.
  const known = new Set<string>();
  for (const { key, shape } of lexiconMatches(s.text.normalize('NFKC'))) {
    known.add(key);
    out.push({ key, shape });
  }
  const tokens = s.tokens;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    // Two capitalised words in a row: a person's full name ("Marco Costa").
    const next = tokens[i + 1];
    if (
      t.kind === 'entity' &&
      next?.kind === 'entity' &&
      !t.possessive &&
      !known.has(`${t.key} ${next.key}`)
    ) {
      out.push({ key: `${t.key} ${next.key}`, shape: 'person' });
      i += 1;
      continue;
    }
    const zh = zhPerson(tokens, i);
    if (zh) {
      // 金山云 is a cloud, not a person surnamed 金.
      if (![...known].some((k) => k.includes(zh[0]))) out.push({ key: zh[0], shape: 'person' });
      i = zh[1];
      continue;
    }
    if (t.kind === 'cjk' || t.kind === 'number') {
      let j = i;
      let run = '';
      while (j < tokens.length && ZH_TIME_PIECE.test((tokens[j] as Token).raw))
        run += (tokens[j++] as Token).raw;
      if (Array.from(run).length > 1 && ZH_TIME.test(run)) {
        out.push({ key: run, shape: 'time' });
        i = j - 1;
        continue;
      }
    }
    const shape = shapeOf(t);
    if (shape && !known.has(t.key)) out.push({ key: t.key, shape });
  }
  // In the order written: the last value a question names is the one it asks about.
  const text = s.text.normalize('NFKC').toLowerCase();
  return out
    .map((v, i) => ({ v, at: text.indexOf(v.key.split(' ')[0] ?? v.key), i }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map(({ v }) => v);
}

const ASKS_PERSON = /\b(?:who|whom|whose)\b|谁|负责人|处理人|跟进人|维护人|接手人/iu;
/** "Where is it deployed?" asks for a host or a cloud. */
const ASKS_WHERE_DEPLOYED =
  /\bwhere (?:does|is|do|are)\b.*\b(?:runs?|running|deployed|hosted)\b|(?:部署|跑|托管|运行)在哪/iu;
const ASKS_HOST = /\b(?:which|what) (?:machine|host|server|node|box)\b|哪台|哪个(?:机器|服务器|节点|主机)/iu;
const ASKS_VERSION = /\bversions?\b|版本/iu;
const ASKS_TIME = /\bwhen\b|\bwhat time\b|\bwhich day\b|几点|什么时候|哪天|周几|星期几/iu;
const ASKS_KIND: ReadonlyArray<[LexiconShape, RegExp]> = [
  ['database', /\b(?:databases?|datastores?|db|data store)\b|数据库/iu],
  ['editor', /\b(?:editors?|ide|coding|code in|write code)\b|编辑器|写代码/iu],
  ['cloud', /\b(?:cloud|hosting provider)\b|哪家云|什么云|云服务|云厂商/iu],
  [
    'place',
    /\bwhere does .* live\b|\b(?:lives|living|resides?|based in|home city|hometown|city|town)\b|住在哪|住哪|家在哪|哪个城市|哪座城市|常住/iu,
  ],
  ['language', /\b(?:programming language|language|coding|code in|write code)\b|编程语言|什么语言|写代码/iu],
];

/** The kinds of value a question asks for, from its wording. */
export function shapesAsked(question: string): Set<Shape> {
  const out = new Set<Shape>();
  if (ASKS_PERSON.test(question)) out.add('person');
  if (ASKS_HOST.test(question)) out.add('host');
  if (ASKS_WHERE_DEPLOYED.test(question)) {
    out.add('host');
    out.add('cloud');
  }
  if (ASKS_VERSION.test(question)) out.add('version');
  if (ASKS_TIME.test(question)) out.add('time');
  for (const [shape, pattern] of ASKS_KIND) if (pattern.test(question)) out.add(shape);
  return out;
}

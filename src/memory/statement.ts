/**
 * How ingest reads one memory statement: its tokens (words, names, identifiers,
 * numbers, Chinese words), which of them carry content, where the predicate starts
 * (the first verb or copula) and so what the statement is about (the subject
 * phrase before the predicate). No model and no dictionary: small word lists and
 * the shape of the text. Uncertain readings are left uncertain (`boundary` -1),
 * and the callers treat uncertainty as "keep both".
 */
import {
  COPULAS,
  EN_STOP,
  EN_VERBS,
  isZhVerb,
  SELF_WORDS,
  SENTENCE_STARTERS,
  UPDATE_MARKERS,
  wordKey,
  ZH_STOP,
  ZH_UPDATE_MARKERS,
} from './statement-words.js';
import { segmentWordsOf } from './words.js';

export type TokenKind = 'word' | 'entity' | 'ident' | 'number' | 'cjk';

export interface Token {
  /** Comparison form: NFKC, lower-cased, English words stemmed; "I"/"my"/"用户" → "user". */
  key: string;
  /** As written. */
  raw: string;
  kind: TokenKind;
  /** A stopword or particle: kept for the predicate search, left out of content. */
  stop: boolean;
  /** "now", "currently", "现在", "改"…: says the statement replaces an older one; not content. */
  marker: boolean;
  /** Written as `X's` (English possessive). */
  possessive: boolean;
}

export interface Statement {
  text: string;
  tokens: Token[];
  /** Tokens that carry content (not stop, not marker), in order. */
  content: Token[];
  /** Index into `content` where the predicate starts, or -1 when no verb or copula was found. */
  boundary: number;
  /** The token that opens the predicate (a verb, copula or Chinese verb), when found. */
  verb: Token | undefined;
  /** Sorted distinct keys of the content before the predicate: what the statement is about. */
  subject: string[];
  /** The statement says that something changed ("now", "no longer", "现在", "改成"…). */
  updates: boolean;
}

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/u;

/**
 * One scan, left to right: quoted names, identifiers (PROJ-142, api.example.com,
 * config/prod.yaml, max_retries, v2.3.1), Latin words (with 's / n't), numbers,
 * CJK runs. Latin classes exclude CJK so "部署在Fly.io上" splits at the script change.
 */
const SCAN = new RegExp(
  [
    '"([^"\\n]{1,80})"',
    '“([^”\\n]{1,80})”',
    '「([^」\\n]{1,80})」',
    '`([^`\\n]{1,80})`',
    '(v?\\d+(?:\\.\\d+)+[A-Za-z0-9-]*)',
    '([A-Za-z0-9\\u00C0-\\u024F_]+(?:[-./:@][A-Za-z0-9\\u00C0-\\u024F_]+)+|[A-Za-z0-9\\u00C0-\\u024F]*_[A-Za-z0-9\\u00C0-\\u024F_]+)',
    "([A-Za-z\\u00C0-\\u024F][A-Za-z0-9\\u00C0-\\u024F]*(?:['’][A-Za-z]+)?)",
    '(\\d+(?:[.,]\\d+)?[A-Za-z%]*)',
    `(${CJK_RUN.source})`,
  ].join('|'),
  'gu',
);

function isSentenceStart(text: string, at: number): boolean {
  const before = text.slice(0, at).trimEnd();
  return before === '' || /[.!?。！？:：;；\n]$/.test(before);
}

function latinToken(word: string, sentenceStart: boolean): Token {
  let base = word;
  let possessive = false;
  let negated = false;
  const apostrophe = /['’]([A-Za-z]+)$/.exec(word);
  if (apostrophe) {
    const tail = apostrophe[1]?.toLowerCase();
    if (tail === 's') {
      possessive = true;
      base = word.slice(0, apostrophe.index);
    } else if (tail === 't' && /n$/i.test(word.slice(0, apostrophe.index))) {
      negated = true;
    }
  }
  const lower = base.toLowerCase();
  if (negated) return { key: 'not', raw: word, kind: 'word', stop: false, marker: false, possessive };
  if (/^\d/.test(base))
    return { key: lower, raw: word, kind: 'number', stop: false, marker: false, possessive };
  const self = SELF_WORDS.has(lower);
  const stemmed = wordKey(lower);
  // "Heron", "GitHub", "UCloud" (not "API": all capitals are acronyms, as often words as names).
  const capitalised =
    /^\p{Lu}\p{Ll}/u.test(base) || /\p{Ll}\p{Lu}/u.test(base) || /^\p{Lu}{2,}\p{Ll}/u.test(base);
  const entity =
    !self &&
    capitalised &&
    !CALENDAR.test(lower) &&
    !EN_STOP.has(lower) &&
    !(sentenceStart && (SENTENCE_STARTERS.has(lower) || COPULAS.has(lower) || EN_VERBS.has(stemmed))) &&
    !UPDATE_MARKERS.has(lower);
  return {
    // Names are compared as written (lower-cased): "Paris" is not "pari".
    key: self ? 'user' : entity ? lower : stemmed,
    raw: word,
    kind: entity ? 'entity' : 'word',
    stop: !self && EN_STOP.has(lower),
    marker: UPDATE_MARKERS.has(lower),
    possessive,
  };
}

function cjkTokens(run: string): Token[] {
  const out: Token[] = [];
  for (const part of segmentWordsOf(run)) {
    const word = part.segment;
    if (!part.isWordLike && !CJK_RUN.test(word)) continue;
    const self = SELF_WORDS.has(word);
    out.push({
      key: self ? 'user' : word,
      raw: word,
      kind: 'cjk',
      stop: ZH_STOP.has(word),
      marker: ZH_UPDATE_MARKERS.has(word),
      possessive: false,
    });
  }
  return out;
}

/** The tokens of `text` in order. */
export function tokenize(text: string): Token[] {
  const normalised = text.normalize('NFKC');
  const out: Token[] = [];
  for (const m of normalised.matchAll(SCAN)) {
    const at = m.index ?? 0;
    const quoted = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (quoted !== undefined) {
      const key = quoted.trim().toLowerCase().replace(/\s+/g, ' ');
      if (key !== '')
        out.push({ key, raw: quoted, kind: 'entity', stop: false, marker: false, possessive: false });
    } else if (m[5] !== undefined || m[6] !== undefined) {
      const raw = (m[5] ?? m[6]) as string;
      // Versions (2.3.1) and times of day (16:30) are values, not identifiers.
      const kind: TokenKind = /^v?\d+(?:\.\d+)+|^\d{1,2}:\d{2}$/.test(raw) ? 'number' : 'ident';
      out.push({ key: raw.toLowerCase(), raw, kind, stop: false, marker: false, possessive: false });
    } else if (m[7] !== undefined) {
      out.push(latinToken(m[7], isSentenceStart(normalised, at)));
    } else if (m[8] !== undefined) {
      out.push({
        key: m[8].toLowerCase(),
        raw: m[8],
        kind: 'number',
        stop: false,
        marker: false,
        possessive: false,
      });
    } else if (m[9] !== undefined) {
      out.push(...cjkTokens(m[9]));
    }
  }
  markPhrases(out);
  return out;
}

/** Two-word update markers: "no longer", "these days", "as of now". */
function markPhrases(tokens: Token[]): void {
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = tokens[i] as Token;
    const b = tokens[i + 1] as Token;
    if (a.key === 'no' && b.key === 'longer') {
      // A change, and a negation: "no longer lives in Lisbon" contradicts "lives in Lisbon".
      a.key = 'not';
      a.stop = false;
      b.marker = true;
      b.stop = true;
    } else if (a.key === 'these' && b.key === 'day') {
      a.marker = true;
      b.marker = true;
      a.stop = true;
      b.stop = true;
    }
  }
}

/** A single Chinese character standing alone (not a particle): a piece of an unsegmented name. */
function loose(t: Token | undefined): boolean {
  return t !== undefined && t.kind === 'cjk' && !t.stop && Array.from(t.raw).length === 1;
}

/** Days and months are capitalised but name no thing a memory is about. */
const CALENDAR =
  /^(?:mon|tues|wednes|thurs|fri|satur|sun)days?$|^(?:january|february|march|april|may|june|july|august|september|october|november|december)$/;

const PRONOUNS = new Set(['i', 'we', 'you', 'they', 'user', 'users', 'people', 'he', 'she', 'it']);

/**
 * Does this token open the predicate? Copulas and auxiliaries; past forms ("moved",
 * "is hosted"); verbs of the list in the third person ("runs", "uses"), or in the
 * base form right after a pronoun ("we use"). A bare "lead" or "build" stays a noun.
 */
function isVerb(token: Token, previous: Token | undefined, next: Token | undefined): boolean {
  if (token.kind === 'cjk') {
    // A lone character between two others the segmenter could not group is part of a name (华|为|云).
    if (Array.from(token.raw).length === 1 && loose(previous) && loose(next)) return false;
    return token.key !== 'user' && isZhVerb(token.raw);
  }
  if (token.kind !== 'word') return false;
  const lower = token.raw.toLowerCase();
  if (COPULAS.has(lower.replace(/n['’]t$/, ''))) return true;
  if (token.stop) return false;
  if (/^[a-z]{3,}ed$/.test(lower) && !/(?:eed|need)$/.test(lower)) return true;
  if (!EN_VERBS.has(token.key)) return false;
  if (/s$/.test(lower) && lower !== token.key) return true;
  return previous !== undefined && PRONOUNS.has(previous.raw.toLowerCase());
}

/** Statements read lately, by text: searches and ingests read the same memories again and again. */
const recent = new Map<string, Statement>();
const RECENT_MAX = 4096;

/** Reads a statement: tokens, content, the predicate boundary and the subject phrase (memoised). */
export function readStatement(text: string): Statement {
  const known = recent.get(text);
  if (known !== undefined) return known;
  const read = parse(text);
  if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value as string);
  recent.set(text, read);
  return read;
}

function parse(text: string): Statement {
  const tokens = tokenize(text);
  const content: Token[] = [];
  let boundary = -1;
  let verb: Token | undefined;
  tokens.forEach((token, index) => {
    if (boundary === -1 && !token.marker && isVerb(token, tokens[index - 1], tokens[index + 1])) {
      boundary = content.length;
      verb = token;
    }
    if (!token.stop && !token.marker) content.push(token);
  });
  // "王磊不喜欢咖啡" is about 王磊 as much as "王磊喜欢咖啡": negations are not part of the subject.
  const before = boundary === -1 ? [] : content.slice(0, boundary).filter((t) => !isNegation(t));
  const subject = [...new Set(before.map((t) => t.key))].sort();
  const updates = tokens.some((t) => t.marker || t.raw.startsWith('不再'));
  return { text, tokens, content, boundary, verb, subject, updates };
}

const NEGATIONS = new Set(['not', 'no', 'never', 'without', 'none']);
const ZH_NEGATION_STARTS = new Set(Array.from('不没别无未非'));

/** "not", "never", "no longer", 不, 没有, 不再…: a token that turns a statement around. */
export function isNegation(token: Token): boolean {
  if (token.kind === 'cjk') return ZH_NEGATION_STARTS.has(Array.from(token.raw)[0] ?? '');
  return NEGATIONS.has(token.key);
}

/** Names, identifiers and numbers: the tokens that usually carry a value or a subject. */
export function isValueToken(token: Token): boolean {
  return token.kind === 'entity' || token.kind === 'ident' || token.kind === 'number';
}

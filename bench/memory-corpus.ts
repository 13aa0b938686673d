/**
 * A generated, labeled corpus for the memory retrieval benchmark: target facts about
 * a fictional user and their projects (English and Chinese), queries phrased as
 * surface variants of each target, update chains (superseded facts), near-stale
 * pairs (two active values with different dates) and filler memories. Everything
 * comes from a seeded PRNG, so one seed always yields the same corpus.
 */
import type { Category } from '../src/memory/types.js';
import {
  CONFIG_DIRS,
  CONFIG_EXT,
  DAYS_EN,
  DAYS_ZH,
  DBS,
  HOSTS,
  LANGS,
  LIBS,
  PEOPLE,
  PROJECTS,
  RUNNERS,
  USER_FACTS,
} from './memory-corpus-data.js';

export { PROJECTS } from './memory-corpus-data.js';

/** One memory to store; `ageDays` sets its creation time relative to the bench's "now". */
export interface CorpusMemory {
  key: string;
  content: string;
  category: Category;
  subject: string;
  attribute: string;
  ageDays: number;
}

export type QueryKind = 'target' | 'chain' | 'near-stale';

export interface CorpusQuery {
  text: string;
  /** Key of the memory that should be retrieved. */
  expect: string;
  kind: QueryKind;
  /** For chain and near-stale queries: the key of the older value. */
  older?: string;
  lang: 'en' | 'zh';
}

export interface MemoryCorpus {
  /** Targets, distractors, old chain values and near-stale older values. */
  memories: CorpusMemory[];
  /** `[oldKey, newKey]`: after ingest, `repo.supersede(old, new)`. */
  supersedes: Array<[string, string]>;
  queries: CorpusQuery[];
  /** Project names used by targets (fillers never contain them). */
  projects: string[];
}

/** mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

/** A fact template about one project attribute; `{P}` is the name, `{p}` a lower-case or partial form. */
interface AttrTemplate {
  attribute: string;
  value(rng: Rng, name: string): Record<string, string>;
  en: { fact: string; queries: string[] };
  zh: { fact: string; queries: string[] };
}

const ATTRS: AttrTemplate[] = [
  {
    attribute: 'port',
    value: (rng) => ({ V: String(pick(rng, [3000, 8080, 5173, 4000, 9090, 8000, 5000, 7001, 8443, 3001])) }),
    en: {
      fact: 'The {P} API server listens on port {V}.',
      queries: [
        'which port does the {p} api use',
        '{P} service port number',
        'what port is {l}-api running on',
      ],
    },
    zh: { fact: '{P} 的 API 服务监听 {V} 端口。', queries: ['{P} 服务端口是多少', '{p} 接口用哪个端口'] },
  },
  {
    attribute: 'database',
    value: (rng) => ({ V: pick(rng, DBS) }),
    en: {
      fact: '{P} stores all of its data in {V}.',
      queries: ['what database does {P} use', '{p} db backend', 'which datastore is behind {P}'],
    },
    zh: { fact: '{P} 使用 {V} 作为数据库。', queries: ['{P} 用什么数据库', '{p} 的数据存储'] },
  },
  {
    attribute: 'deploy',
    value: (rng) => ({ V: pick(rng, HOSTS), D: String(int(rng, 0, 4)) }),
    en: {
      fact: '{P} is deployed to {V} every {DAY}.',
      queries: ['where do we deploy {P}', '{p} deployment target', 'hosting for {P} releases'],
    },
    zh: { fact: '{P} 每周{DZH}部署到 {V}。', queries: ['{P} 部署在哪里', '{p} 上线平台'] },
  },
  {
    attribute: 'test-command',
    value: (rng, name) => ({ V: `${pick(rng, RUNNERS)} --filter ${name.toLowerCase()}-core` }),
    en: {
      fact: 'Run the {P} test suite with `{V}`.',
      queries: ['how do I run the {P} tests', '{p} testing command', 'command for {l}-core tests'],
    },
    zh: { fact: '{P} 的测试命令是 `{V}`。', queries: ['{P} 怎么跑测试', '{l}-core 测试'] },
  },
  {
    attribute: 'config-path',
    value: (rng, name) => ({ V: `${pick(rng, CONFIG_DIRS)}/${name.toLowerCase()}.${pick(rng, CONFIG_EXT)}` }),
    en: {
      fact: '{P} reads its settings from {V}.',
      queries: ['where is the {P} config file', '{p} configuration path', '{FILE} location'],
    },
    zh: { fact: '{P} 的配置文件在 {V}。', queries: ['{P} 配置文件路径', '{FILE} 在哪'] },
  },
  {
    attribute: 'version',
    value: (rng) => ({ V: pick(rng, LIBS), X: `${int(rng, 1, 22)}.${int(rng, 0, 12)}.${int(rng, 0, 9)}` }),
    en: {
      fact: '{P} is pinned to {V} {X}.',
      queries: ['which {V} version does {P} use', '{p} {V} {X}', 'is {P} on {V} {MAJOR}'],
    },
    zh: { fact: '{P} 锁定了 {V} 版本 {X}。', queries: ['{P} 的 {V} 版本', '{p} 依赖版本 {X}'] },
  },
  {
    attribute: 'owner',
    value: (rng) => ({ V: pick(rng, PEOPLE) }),
    en: {
      fact: '{V} is the maintainer of {P}.',
      queries: ['who maintains {P}', '{P} owner', 'who should review {p} pull requests'],
    },
    zh: { fact: '{V} 负责维护 {P}。', queries: ['{P} 谁负责', '{p} 维护者是谁'] },
  },
  {
    attribute: 'language',
    value: (rng) => ({ V: pick(rng, LANGS) }),
    en: {
      fact: '{P} is written in {V}.',
      queries: ['what language is {P} implemented in', '{p} programming language'],
    },
    zh: { fact: '{P} 是用 {V} 编写的。', queries: ['{P} 用什么语言开发', '{p} 编程语言'] },
  },
];

function fill(template: string, slots: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => slots[name] ?? whole);
}

/** Slots for one project fact: the name, a partial or lower-case variant and the values. */
function slotsFor(rng: Rng, name: string, values: Record<string, string>): Record<string, string> {
  const day = Number(values.D ?? 0);
  const file = (values.V ?? '').split('/').pop() ?? '';
  const partial = name.length >= 7 && rng() < 0.4 ? name.slice(0, 5).toLowerCase() : name.toLowerCase();
  return {
    ...values,
    P: name,
    p: partial,
    l: name.toLowerCase(),
    DAY: DAYS_EN[day] ?? 'Monday',
    DZH: DAYS_ZH[day] ?? '一',
    FILE: file,
    MAJOR: (values.X ?? '').split('.')[0] ?? '',
  };
}

function projectFact(
  rng: Rng,
  name: string,
  attr: AttrTemplate,
  lang: 'en' | 'zh',
  values?: Record<string, string>,
) {
  const slots = slotsFor(rng, name, values ?? attr.value(rng, name));
  const t = attr[lang];
  return { content: fill(t.fact, slots), queries: t.queries.map((q) => fill(q, slots)), slots };
}

export interface CorpusOptions {
  seed?: number;
  /** How many project facts become superseded chains / near-stale pairs. */
  chains?: number;
  nearStale?: number;
}

/** Builds the labeled part of the corpus (targets, distractors, chains, near-stale pairs). */
export function buildCorpus(options: CorpusOptions = {}): MemoryCorpus {
  const rng = prng(options.seed ?? 20250601);
  const memories: CorpusMemory[] = [];
  const supersedes: Array<[string, string]> = [];
  const queries: CorpusQuery[] = [];
  const add = (m: CorpusMemory): void => {
    memories.push(m);
  };
  const ask = (texts: string[], expect: string, kind: QueryKind, lang: 'en' | 'zh', older?: string): void => {
    const n = int(rng, 1, Math.min(3, texts.length));
    for (const text of texts.slice(0, n))
      queries.push({ text, expect, kind, lang, ...(older ? { older } : {}) });
  };

  // Project facts: every project × attribute is a target; some get history.
  const pairs = PROJECTS.flatMap((name) => ATTRS.map((attr) => ({ name, attr })));
  const order = pairs.map((_, i) => i).sort(() => rng() - 0.5);
  const chainSet = new Set(order.slice(0, options.chains ?? 24));
  const staleSet = new Set(
    order.slice(options.chains ?? 24, (options.chains ?? 24) + (options.nearStale ?? 24)),
  );
  pairs.forEach(({ name, attr }, i) => {
    const lang = rng() < 0.3 ? 'zh' : 'en';
    const key = `${name}:${attr.attribute}`;
    const fact = projectFact(rng, name, attr, lang);
    const base = { category: 'fact' as const, subject: name, attribute: attr.attribute };
    const isStale = staleSet.has(i);
    add({ key, content: fact.content, ...base, ageDays: isStale ? int(rng, 1, 20) : int(rng, 1, 400) });
    let older: string | undefined;
    if (chainSet.has(i) || isStale) {
      let prev = fact;
      for (let tries = 0; tries < 20 && prev.content === fact.content; tries++) {
        prev = projectFact(rng, name, attr, lang, { ...attr.value(rng, name) });
      }
      if (prev.content !== fact.content) {
        older = `${key}#old`;
        add({
          key: older,
          content: prev.content,
          ...base,
          ageDays: isStale ? int(rng, 300, 700) : int(rng, 401, 700),
        });
        if (!isStale) supersedes.push([older, key]);
      }
    }
    const kind: QueryKind = older === undefined ? 'target' : isStale ? 'near-stale' : 'chain';
    ask(fact.queries, key, kind, lang, older);
  });

  // Facts about the user, with hand-written distractors and superseded values.
  for (const fact of USER_FACTS) {
    const key = `user:${fact.attribute}`;
    const lang = /[\u4e00-\u9fff]/.test(fact.content) ? 'zh' : 'en';
    const base = { category: fact.category, subject: 'user', attribute: fact.attribute };
    add({ key, content: fact.content, ...base, ageDays: int(rng, 1, 200) });
    if (fact.distractor !== undefined) {
      add({
        key: `${key}#distractor`,
        content: fact.distractor,
        ...base,
        attribute: `${fact.attribute}-other`,
        ageDays: int(rng, 1, 300),
      });
    }
    if (fact.old !== undefined) {
      add({ key: `${key}#old`, content: fact.old, ...base, ageDays: int(rng, 250, 700) });
      supersedes.push([`${key}#old`, key]);
    }
    ask(
      fact.queries,
      key,
      fact.old === undefined ? 'target' : 'chain',
      lang,
      fact.old === undefined ? undefined : `${key}#old`,
    );
  }
  return { memories, supersedes, queries, projects: [...PROJECTS] };
}

const SYLLABLES = [
  'ka',
  've',
  'ro',
  'tu',
  'mi',
  'sa',
  'le',
  'po',
  'di',
  'gu',
  'na',
  'fe',
  'zo',
  'ri',
  'bo',
  'hu',
];
const TOPICS_EN = [
  'the quarterly roadmap',
  'flaky CI jobs',
  'the logging format',
  'on-call handover',
  'cache invalidation',
  'the design review',
  'API rate limits',
  'the hiring plan',
];
const TOPICS_ZH = [
  '季度规划',
  '日志格式',
  '值班交接',
  '缓存失效',
  '设计评审',
  '接口限流',
  '招聘计划',
  '性能优化',
];
const EVENTS = ['retro', 'sync', 'planning meeting', 'lunch', 'offsite', 'demo'];

/** A filler project name (three syllables plus a number) that never contains a target name. */
export function fillerProject(i: number): string {
  const s = (k: number): string => SYLLABLES[k % SYLLABLES.length] ?? 'ka';
  const raw = `${s(i)}${s(Math.floor(i / 16) + 3)}${s(Math.floor(i / 256) + 7)}`;
  return `${raw.charAt(0).toUpperCase()}${raw.slice(1)}${Math.floor(i / 4096)}`;
}

/** Filler memory number `i`: project facts about filler projects or dated meeting notes. */
export function fillerMemory(i: number, seed = 7): CorpusMemory {
  const rng = prng(seed * 1_000_003 + i);
  const ageDays = int(rng, 0, 900);
  if (rng() < 0.6) {
    const name = fillerProject(int(rng, 0, 3999));
    const attr = pick(rng, ATTRS);
    const fact = projectFact(rng, name, attr, rng() < 0.3 ? 'zh' : 'en');
    return {
      key: `filler:${i}`,
      content: fact.content,
      category: 'fact',
      subject: name,
      attribute: attr.attribute,
      ageDays,
    };
  }
  const month = int(rng, 1, 12);
  const day = int(rng, 1, 28);
  const content =
    rng() < 0.3
      ? `${month}月${day}日和${pick(rng, PEOPLE)}讨论了${pick(rng, TOPICS_ZH)}。`
      : `${pick(rng, PEOPLE)} raised ${pick(rng, TOPICS_EN)} at the ${pick(rng, EVENTS)} on 2024-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}.`;
  return {
    key: `filler:${i}`,
    content,
    category: 'general',
    subject: 'notes',
    attribute: `note-${i}`,
    ageDays,
  };
}

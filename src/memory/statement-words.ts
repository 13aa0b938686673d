/**
 * The small word lists behind statement reading (statement.ts) and the version
 * relation (relate.ts). English entries are compared after `stem` unless noted.
 */
import { stem } from './embed.js';
import { STOPWORDS } from './stopwords.js';

const words = (text: string): string[] => text.trim().split(/\s+/);

/**
 * The comparison form of an English word: stemmed, then "-er" and a final "e"
 * dropped, so "maintainer"/"maintained"/"maintains" and "move"/"moved" meet.
 */
export function wordKey(lower: string): string {
  let key = stem(lower);
  if (key.length > 6 && key.endsWith('er')) key = key.slice(0, -2);
  if (key.length >= 4 && key.endsWith('e')) key = key.slice(0, -1);
  return key;
}

/** English stopwords, minus negations: "does not use Redis" must differ from "uses Redis". */
export const EN_STOP: ReadonlySet<string> = new Set([...STOPWORDS].filter((w) => w !== 'not' && w !== 'no'));

/** Words for the speaker or the user, all read as the subject "user" (surface forms). */
export const SELF_WORDS: ReadonlySet<string> = new Set([
  ...words('i me my mine myself we us our ours ourselves user'),
  ...words('我 我们 用户 本人 自己'),
]);

/** Surface forms that open a predicate: copulas, auxiliaries and modals. */
export const COPULAS: ReadonlySet<string> = new Set(
  words(
    'is are was were be been am has have had will would can could should must may might does do did shall',
  ),
);

/**
 * Verbs that open the predicate of a typical memory (compared stemmed): "runs",
 * "uses", "lives", "listens", "moved"… Past forms ending in -ed count on their own.
 */
export const EN_VERBS: ReadonlySet<string> = new Set(
  words(`
    run use live prefer like love hate enjoy work own maintain manage deploy host store keep need want
    drink eat speak write read build ship release call send serve listen depend require contain support
    target cost take make go goe move switch migrate stay belong report expire start begin open close
    commute drive play study teach visit meet choose pick get set hold resolve point route map forward
    proxy connect talk handle wear sit reside cover rely answer lead chair sponsor fund review
  `).map(wordKey),
);

/** Capitalised at the start of a sentence, these are ordinary words, not names (surface forms). */
export const SENTENCE_STARTERS: ReadonlySet<string> = new Set(
  words(`
    please always never remember note reminder todo fyi user users our my his her their its this that these those there
    staging production prod dev development local default project team server service api database
    every each today tomorrow yesterday meeting deadline release ticket config configuration port
    new old next last current main primary backup shared public private internal external
  `),
);

/** Say that a statement replaces an older one; not content (surface forms). */
export const UPDATE_MARKERS: ReadonlySet<string> = new Set(
  words(
    'now currently presently nowadays still recently lately today anymore instead actually again already',
  ),
);

/** Chinese particles and function words: not content (whole segments). */
export const ZH_STOP: ReadonlySet<string> = new Set(
  words(
    '的 的是 了 着 过 吧 呢 啊 呀 嘛 哦 和 与 及 或 而 被 把 给 对 这 那 这个 那个 个 上 里 中 也 都 就 又 很 非常 之 其 是 在 为 于 所',
  ),
);

/** Chinese update markers (whole segments). */
export const ZH_UPDATE_MARKERS: ReadonlySet<string> = new Set(
  words('现在 目前 如今 当前 眼下 已经 已 仍然 仍 依然 还 最近 近来 改 改为 改成 换成 换 变成 还是 依旧'),
);

const ZH_VERB_WORDS: ReadonlySet<string> = new Set(
  words(`
    使用 采用 喜欢 负责 运行 部署 监听 连接 依赖 担任 管理 维护 托管 位于 属于 需要 习惯 偏好 每天 每周
    每晚 每月 经常 通常 总是 一直 都要 主要 打算 计划 准备 迁移 切换 跑在 住在 用来
  `),
);
/** A Chinese segment that starts with one of these characters opens the predicate. */
const ZH_VERB_STARTS = new Set(Array.from('是在住用喝吃爱有要会想叫姓改换搬去来到写看学做当跑开为由归'));

/** Does this Chinese segment open the predicate (a verb, copula or habitual adverb)? */
export function isZhVerb(segment: string): boolean {
  return ZH_VERB_WORDS.has(segment) || ZH_VERB_STARTS.has(Array.from(segment)[0] ?? '');
}

/**
 * Attributes that hold one value at a time (a port, a home city, an owner, a
 * default, a favourite…): a statement about one of them with another value
 * replaces the old one. Multi-valued relations ("uses", "knows") are absent on purpose.
 */
export const SINGLE_VALUED_EN: ReadonlySet<string> = new Set(
  words(`
    port city home address email phone owner maintainer lead manager version default favourite favorite
    prefer timezone deadline live locat host deploy database db editor shell theme font name birthday
    age title role assign assignee due schedul point resolve endpoint url domain region branch
    password key token limit timeout budget price salary level status
  `).map(wordKey),
);

/** Chinese single-valued attributes (substrings of the statement). */
export const SINGLE_VALUED_ZH: readonly string[] = words(`
  住 端口 版本 负责人 地址 城市 邮箱 电话 默认 最喜欢 偏好 时区 截止 部署 位于 数据库 编辑器 主题
  名字 生日 职位 角色 域名 分支 区域 超时 预算 价格 状态 早餐 每天
`);

/** Prepositions after which a name is the owner of the attribute, not its value ("the owner of Heron"). */
export const OWNER_PREPOSITIONS: ReadonlySet<string> = new Set(words('of for by 的 属于'));

/**
 * The most common Chinese surnames (about 85% of people): a swapped Chinese word
 * that starts with one, or follows one, is taken for a personal name.
 */
export const ZH_SURNAMES: ReadonlySet<string> = new Set([
  ...Array.from(
    '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连萧',
  ),
  ...words('欧阳 司马 诸葛 上官 东方 皇甫 慕容 令狐 夏侯 尉迟'),
]);

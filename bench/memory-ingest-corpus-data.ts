/** Word pools for the ingest benchmark corpus (see memory-ingest-corpus.ts) and the pool builder. */
import {
  type Person,
  type Pools,
  pick,
  type Rng,
  shuffle,
  slugify,
  type ZhProject,
} from './memory-ingest-corpus-kit.js';

const words = (s: string): string[] => s.trim().split(/\s+/);
/** "王:wang 李:li" → [["王", "wang"], ["李", "li"]]. */
const pinyin = (s: string): [string, string][] =>
  words(s).map((w) => {
    const [han = '', py = ''] = w.split(':');
    return [han, py];
  });

/** Single-word English project names. */
const EN_SINGLE = words(`
  Heron Osprey Kestrel Falcon Plover Sandpiper Warbler Starling Magpie Puffin Gannet Condor Marlin Pelican
  Sparrow Finch Wren Lark Egret Bramble Thistle Larch Cypress Alder Aspen Birch Hazel Rowan Sequoia Tamarack
  Juniper Sorrel Yarrow Clover Fennel Cobalt Argon Basalt Quartz Onyx Garnet Jasper Flint Slate Mica Zephyr
  Nimbus Cirrus Stratus Monsoon Tempest Squall Ember Cinder Beacon Lantern Compass Anchor Harbor Keystone
  Lodestar Meridian Orbit Pulsar Quasar Nebula Comet Vega Altair Rigel Sirius Lyra Orion Atlas Tundra Fjord
  Mesa Canyon Delta Lagoon Glacier Dune Prairie Savanna Otter Badger Lynx Marten Ferret Bison Ibex Walrus
  Narwhal Manatee Osmium Tarragon Saffron Paprika Nutmeg Vesper Halcyon Solstice`);
const EN_PREFIX = words(`Blue Iron Stone Silver North Red Storm Cedar Frost Gold Black Bright Copper Maple Oak
  Pine River Sun Moon Star Wind Wolf Raven Salt`);
const EN_SUFFIX =
  words(`fin bark gate wood field crest brook wing fall ridge haven stone light forge mark hollow
  peak shore vale leaf`);

/** All English project names: single words plus compounds like "Bluefin" or "Ironbark". */
export const EN_PROJECTS: string[] = [
  ...new Set([...EN_SINGLE, ...EN_PREFIX.flatMap((p) => EN_SUFFIX.map((s) => `${p}${s}`))]),
];

const FIRST_NAMES = words(`Dana Marco Aiko Lena Omar Priya Tom Sofia Lucas Maya Ethan Nora Felix Clara Hugo
  Iris Jonas Kira Leon Mira Noah Olga Pablo Rosa Samir Tara Victor Wanda Yusuf Zoe Anika Bruno Carmen Dmitri
  Elena Farid Greta Hiro Ines Jamal Katya Liam Mateo Nadia Oscar Petra Quinn Rafael Selma Theo`);
const LAST_NAMES = words(`Whitfield Ruiz Tanaka Vogel Haddad Nair Becker Rossi Moreau Larsen Okafor Kowalski
  Silva Novak Fischer Duarte Brennan Lindqvist Costa Meyer Ivanova Santos Hughes Nakamura Petrov Dubois Keller
  Morales Quinlan Sato Varga Holm Mendes Walsh Yilmaz Koch Abbott Serrano Falk Ortega Jensen Byrne Castillo
  Hartmann Lund Pereira Shah Adler Romero Kaur`);

const ZH_SURNAMES = pinyin(`王:wang 李:li 张:zhang 刘:liu 陈:chen 杨:yang 黄:huang 赵:zhao 吴:wu 周:zhou
  徐:xu 孙:sun 马:ma 朱:zhu 胡:hu 郭:guo 何:he 高:gao 林:lin 罗:luo 郑:zheng 梁:liang 谢:xie 宋:song
  唐:tang 韩:han 冯:feng 邓:deng 曹:cao 彭:peng 曾:zeng 萧:xiao 田:tian 董:dong 潘:pan 袁:yuan 蒋:jiang
  蔡:cai 余:yu 杜:du 叶:ye 程:cheng 魏:wei 苏:su 吕:lv 丁:ding 沈:shen 姚:yao`);
const ZH_GIVEN = pinyin(`磊:lei 静:jing 伟:wei 芳:fang 敏:min 强:qiang 洋:yang 艳:yan 勇:yong 军:jun 杰:jie
  娟:juan 涛:tao 明:ming 超:chao 秀英:xiuying 晓雨:xiaoyu 思远:siyuan 子涵:zihan 雨欣:yuxin 浩然:haoran
  建国:jianguo 志强:zhiqiang 海燕:haiyan 丽华:lihua 文博:wenbo 欣怡:xinyi 俊杰:junjie 佳琪:jiaqi 梓轩:zixuan
  一鸣:yiming 晨:chen 鹏:peng 婷:ting 倩:qian 雪:xue 琳:lin 斌:bin 飞:fei 宇:yu 凯:kai 慧:hui 平:ping 刚:gang
  玲:ling 桂英:guiying 亮:liang 波:bo 华:hua 健:jian 红:hong 霞:xia 晓东:xiaodong 嘉怡:jiayi 雅婷:yating
  子豪:zihao 天佑:tianyou 诗涵:shihan 若曦:ruoxi 博文:bowen 立新:lixin 国栋:guodong 春梅:chunmei 振华:zhenhua
  美玲:meiling 宏伟:hongwei 晓峰:xiaofeng 梦瑶:mengyao 家豪:jiahao 欣然:xinran`);

const ZH_PROJECT_HEAD = pinyin(`青:qing 白:bai 金:jin 银:yin 云:yun 星:xing 天:tian 海:hai 山:shan 风:feng
  雷:lei 火:huo 光:guang 龙:long 凤:feng 鹰:ying 鹤:he 鲸:jing 鹿:lu 松:song 晨:chen 夜:ye 雪:xue 紫:zi`);
const ZH_PROJECT_TAIL = pinyin(`鸟:niao 河:he 峰:feng 湖:hu 帆:fan 桥:qiao 石:shi 塔:ta 翼:yi 舟:zhou 川:chuan
  岚:lan 原:yuan 泉:quan 林:lin 港:gang 弓:gong 盾:dun 箭:jian 灯:deng`);
const ZH_PROJECT_KIND = ['系统', '平台', '项目'];

// Value pools.
export const DATABASES = words(`PostgreSQL MySQL SQLite MongoDB Redis ClickHouse DynamoDB CockroachDB MariaDB
  Cassandra TiDB Elasticsearch Neo4j Firestore ScyllaDB DuckDB`);
export const EDITORS = [
  'Neovim',
  'VS Code',
  'Zed',
  'Emacs',
  'Sublime Text',
  'IntelliJ IDEA',
  'Helix',
  'Vim',
  'Cursor',
  'WebStorm',
  'Nova',
  'Kate',
  'PyCharm',
  'GoLand',
];
export const EN_CITIES = words(`Lisbon Porto Berlin Munich Toronto Austin Denver Seattle Dublin Edinburgh
  Amsterdam Rotterdam Vienna Prague Krakow Melbourne Wellington Vancouver Montreal Boston Barcelona Valencia
  Copenhagen Oslo Helsinki Tallinn Singapore Tokyo Osaka Seoul Zurich Lyon Bristol Leeds Gothenburg Ghent`);
export const EN_TOPICS = [
  'login timeout',
  'CSV export crash',
  'memory leak in the worker',
  'flaky end-to-end tests',
  'slow dashboard',
  'broken password reset',
  'missing audit logs',
  'duplicate webhook deliveries',
  'dark mode contrast issue',
  'timezone bug in reports',
  'stuck payment retries',
  'search ranking regression',
];
export const ENVS: [string, string][] = [
  ['staging', 'pre-production'],
  ['production', 'live'],
  ['internal', 'in-house'],
  ['admin', 'back-office'],
  ['sandbox', 'test'],
];
export const COMPONENTS = words(`billing auth search gateway notifier scheduler ingest reports media export`);
export const SUBDOMAINS = words(`api cdn auth docs status grafana admin hooks static mail`);
export const MEETINGS: [string, string][] = [
  ['weekly sync', 'the weekly team meeting'],
  ['sprint planning', 'the sprint kickoff'],
  ['retro', 'the retrospective'],
  ['demo', 'the show-and-tell'],
  ['architecture review', 'the design review'],
];
export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
export const CLOCK = ['9:00', '9:30', '10:00', '11:00', '13:30', '14:00', '15:00', '16:30'];
export const ROOMS = words(`Fir Oak Maple Elm Willow Spruce Poplar Linden Hawthorn Chestnut`);
export const HOST_KINDS = words(`web app node worker edge svc`);
export const REGIONS = words(`fra1 ams3 sgp1 nyc2 lon1 sfo3 tyo2 syd1`);

/** Config keys: name, English description, Chinese description, value generator. */
export interface ConfigKey {
  key: string;
  en: string;
  zh: string;
  gen: (rng: Rng) => string;
}
const step = (lo: number, hi: number, by: number) => (rng: Rng) =>
  String(lo + by * Math.floor(rng() * (Math.floor((hi - lo) / by) + 1)));
export const CONFIG_KEYS: ConfigKey[] = [
  { key: 'max_retries', en: 'the retry limit', zh: '重试次数', gen: step(1, 10, 1) },
  { key: 'request_timeout_ms', en: 'the request timeout', zh: '请求超时时间', gen: step(500, 30000, 500) },
  { key: 'pool_size', en: 'the connection pool size', zh: '连接池大小', gen: step(5, 100, 5) },
  { key: 'batch_size', en: 'the batch size', zh: '批处理大小', gen: step(16, 2048, 16) },
  { key: 'cache_ttl_seconds', en: 'the cache lifetime', zh: '缓存过期时间', gen: step(30, 3600, 30) },
  { key: 'worker_count', en: 'the number of workers', zh: '工作进程数', gen: step(1, 64, 1) },
  { key: 'rate_limit_per_minute', en: 'the rate limit', zh: '每分钟限流', gen: step(60, 6000, 60) },
  { key: 'max_upload_mb', en: 'the upload size limit', zh: '上传大小上限', gen: step(5, 500, 5) },
  { key: 'session_ttl_hours', en: 'the session lifetime', zh: '会话有效期', gen: step(1, 720, 1) },
  { key: 'retry_backoff_ms', en: 'the delay between retries', zh: '重试间隔', gen: step(100, 10000, 100) },
  {
    key: 'log_level',
    en: 'the log verbosity',
    zh: '日志级别',
    gen: (rng) => words('debug info warn error')[Math.floor(rng() * 4)] ?? 'info',
  },
];
export const CONFIG_FILES = [
  'config/prod.yaml',
  'config/settings.toml',
  '.env.production',
  'conf/app.ini',
  'deploy/values.yaml',
];

/** Packages with a typical major-version range. */
export const LIBS: [string, number, number][] = [
  ['react-dom', 16, 19],
  ['typescript', 4, 5],
  ['tokio', 1, 1],
  ['serde_json', 1, 1],
  ['django', 3, 5],
  ['fastapi', 0, 0],
  ['express', 4, 5],
  ['@nestjs/core', 8, 11],
  ['sqlalchemy', 1, 2],
  ['spring-boot', 2, 3],
  ['lodash-es', 4, 4],
  ['prisma', 4, 6],
  ['vite', 4, 6],
  ['next', 12, 15],
  ['pydantic', 1, 2],
  ['gin', 1, 1],
];

export const ZH_CITIES =
  words(`北京 上海 杭州 成都 深圳 广州 南京 苏州 武汉 西安 重庆 长沙 厦门 青岛 大连 天津 合肥
  郑州 昆明 宁波 无锡 珠海 贵阳 南昌 福州 济南 沈阳 哈尔滨 兰州 海口`);
export const ZH_DRINKS = words(
  `豆浆 咖啡 牛奶 燕麦奶 绿茶 红茶 美式咖啡 拿铁 酸奶 蜂蜜水 柠檬水 豆奶 普洱茶 椰奶 热可可 乌龙茶`,
);
export const ZH_SPORTS = words(
  `游泳 打羽毛球 跑步 打篮球 练瑜伽 骑车 打乒乓球 打网球 练拳击 攀岩 踢足球 跳操 练普拉提`,
);
export const ZH_SLOTS = words(`早上 中午 下午 晚上`);
export const ZH_WEEKDAYS = words(`周一 周二 周三 周四 周五 周六 周日`);
export const ZH_CLOUDS = words(
  `阿里云 腾讯云 华为云 百度智能云 火山引擎 AWS Azure 京东云 天翼云 金山云 UCloud 自建机房`,
);
export const ZH_ENVS: [string, string][] = [
  ['测试环境', '测试服'],
  ['预发布环境', '预发'],
  ['生产环境', '线上'],
  ['开发环境', '开发机'],
];
export const ZH_TOPICS = words(
  `登录超时 导出崩溃 内存泄漏 支付回调丢失 报表时区错误 搜索结果排序异常 页面白屏 消息重复推送 权限校验失效 图片上传失败`,
);
export const ZH_MEETINGS: [string, string][] = [
  ['周会', '每周例会'],
  ['需求评审会', '需求讨论'],
  ['复盘会', '回顾会'],
  ['技术分享会', '技术沙龙'],
  ['迭代评审', '迭代验收'],
];
export const ZH_CLOCK = words(
  `上午九点 上午九点半 上午十点 上午十一点 下午两点 下午三点 下午四点 下午四点半`,
);
export const ZH_ROOMS = words(`梧桐 银杏 香樟 翠竹 青松 海棠 玉兰 紫荆`);

function uniqueSlugs<T extends { slug: string }>(xs: T[]): T[] {
  const seen = new Map<string, number>();
  return xs.map((x) => {
    const n = (seen.get(x.slug) ?? 0) + 1;
    seen.set(x.slug, n);
    return n === 1 ? x : { ...x, slug: `${x.slug}-${n}` };
  });
}

/**
 * Entity pools for a corpus in which each family needs about `perFamily` subjects. Pools are capped a
 * little above that, so the same projects and people recur across families.
 */
export function buildPools(rng: Rng, perFamily: number): Pools {
  const cap = Math.max(80, Math.ceil(perFamily * 1.3));
  const en = shuffle(rng, EN_PROJECTS);
  const zhSideEn = en.slice(0, 120);
  const enProjects = en.slice(120, 120 + cap);
  const zhNames: ZhProject[] = ZH_PROJECT_HEAD.flatMap(([h, hp]) =>
    ZH_PROJECT_TAIL.map(([t, tp]) => {
      const kind = pick(rng, ZH_PROJECT_KIND);
      const code = `${hp[0] ?? ''}${tp[0] ?? ''}`.toUpperCase();
      return { name: `${h}${t}${kind}`, short: `${h}${t}`, slug: `${hp}${tp}`, code };
    }),
  );
  const zhEn: ZhProject[] = zhSideEn.map((p) => ({
    name: `${p}项目`,
    short: p,
    slug: slugify(p),
    code: p.slice(0, 4).toUpperCase(),
  }));
  const zhProjects = shuffle(rng, uniqueSlugs([...zhNames, ...zhEn])).slice(0, cap);
  const enPeople: Person[] = FIRST_NAMES.flatMap((f) =>
    LAST_NAMES.map((l) => ({ name: `${f} ${l}`, slug: slugify(`${f} ${l}`) })),
  );
  const zhPeople: Person[] = uniqueSlugs(
    ZH_SURNAMES.flatMap(([s, sp]) => ZH_GIVEN.map(([g, gp]) => ({ name: `${s}${g}`, slug: `${sp}-${gp}` }))),
  );
  const usedTickets = new Set<string>();
  const ticket = (r: Rng, prefix: string): string => {
    for (;;) {
      const num = Math.floor(r() * 4900) + 100;
      const id = `${prefix}-${num}`;
      // Numbers that look like years would make "in 2024" questions ambiguous.
      if ((num < 2000 || num > 2099) && !usedTickets.has(id)) {
        usedTickets.add(id);
        return id;
      }
    }
  };
  return {
    enProjects,
    zhProjects,
    enPeople: shuffle(rng, enPeople).slice(0, cap),
    zhPeople: shuffle(rng, zhPeople).slice(0, cap),
    ticket,
  };
}

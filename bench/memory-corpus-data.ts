/** Word pools and hand-written user facts for the memory bench corpus (see memory-corpus.ts). */
import type { Category } from '../src/memory/types.js';

export const PROJECTS = [
  'Bramble',
  'Thistle',
  'Quokka',
  'Larkspur',
  'Marigold',
  'Pebblecrest',
  'Wombat',
  'Juniper',
  'Nimbus',
  'Saffron',
  'Tundra',
  'Obsidian',
  'Fjordline',
  'Kestrel',
  'Mosaic',
  'Lantern',
  'Orchidea',
  'Pumice',
  'Quasar',
  'Rivulet',
  'Sorrel',
  'Tamarind',
  'Umberto',
  'Vesper',
  'Willowby',
  'Yarrow',
  'Zephyr',
  'Cobalt',
  'Dapple',
  'Emberly',
] as const;

export const PEOPLE = [
  'Dana Whitfield',
  'Marco Ruiz',
  'Aiko Tanaka',
  'Lena Vogel',
  'Omar Haddad',
  '李静',
  '王磊',
  '陈晓雨',
  'Priya Nair',
  'Tom Becker',
];
export const DBS = [
  'PostgreSQL',
  'SQLite',
  'MySQL',
  'MongoDB',
  'Redis',
  'ClickHouse',
  'DynamoDB',
  'CockroachDB',
];
export const HOSTS = [
  'Fly.io',
  'Vercel',
  'AWS ECS',
  'a Hetzner VPS',
  'Cloudflare Workers',
  'Kubernetes on GKE',
  'Render',
  'a Raspberry Pi',
];
export const LANGS = ['TypeScript', 'Rust', 'Go', 'Python', 'Kotlin', 'Elixir', 'Zig', 'C#'];
export const LIBS = ['React', 'Node.js', 'Django', 'Tokio', 'Express', 'Vue', 'Prisma', 'Spring Boot'];
export const DAYS_EN = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
export const DAYS_ZH = ['一', '二', '三', '四', '五'];
export const RUNNERS = [
  'pnpm test',
  'npm run test:unit',
  'cargo test',
  'go test ./...',
  'pytest -q',
  'make check',
  'yarn vitest run',
];
export const CONFIG_DIRS = ['config', 'etc', 'deploy', 'settings', '.config'];
export const CONFIG_EXT = ['yaml', 'toml', 'json', 'ini'];

/** Hand-written facts about the user: content, query variants, optional distractor. */
export interface UserFact {
  attribute: string;
  category: Category;
  content: string;
  queries: string[];
  distractor?: string;
  /** An older value, superseded by `content`. */
  old?: string;
}

export const USER_FACTS: UserFact[] = [
  {
    attribute: 'city',
    category: 'fact',
    content: 'The user lives in Berlin.',
    old: 'The user lives in Paris.',
    queries: ['which city does the user live in', 'where is my home'],
    distractor: "The user's sister lives in Lyon.",
  },
  {
    attribute: 'editor',
    category: 'preference',
    content: 'The user prefers Neovim as their code editor.',
    queries: ['favourite text editor', 'which editor should I open files in'],
    distractor: 'The user dislikes the default editor theme in VS Code.',
  },
  {
    attribute: 'indent',
    category: 'preference',
    content: 'Always indent code with two spaces, never tabs.',
    queries: ['tabs or spaces for indentation', 'code indentation width'],
  },
  {
    attribute: 'commits',
    category: 'instruction',
    content: 'Write commit messages in the Conventional Commits style (feat:, fix:, chore:).',
    queries: ['how should commit messages look', 'commit message format'],
  },
  {
    attribute: 'language',
    category: 'instruction',
    content: 'Reply in Chinese whenever the user writes in Chinese.',
    queries: ['what language to answer in', 'respond language rule'],
  },
  {
    attribute: 'allergy',
    category: 'fact',
    content: 'The user is allergic to peanuts.',
    queries: ['food allergies', 'can the user eat peanut butter'],
    distractor: 'The user bought peanuts for the office party.',
  },
  {
    attribute: 'birthday',
    category: 'fact',
    content: "The user's birthday is on March 3.",
    queries: ['when is my birthday', 'birth date of the user'],
  },
  {
    attribute: 'manager',
    category: 'fact',
    content: "The user's manager is Dana Whitfield.",
    old: "The user's manager is Marco Ruiz.",
    queries: ['who is my boss', 'who does the user report to'],
  },
  {
    attribute: 'passport',
    category: 'reminder',
    content: 'Remind the user to renew their passport before May 15.',
    queries: ['passport renewal deadline', 'travel documents expiring'],
  },
  {
    attribute: 'tea',
    category: 'preference',
    content: 'The user drinks oolong tea in the afternoon, no sugar.',
    queries: ['afternoon drink preference', 'how does the user take their tea'],
  },
  {
    attribute: 'shell',
    category: 'preference',
    content: 'The user uses fish as their login shell.',
    old: 'The user uses zsh as their login shell.',
    queries: ['which shell does the user use', 'login shell'],
  },
  {
    attribute: 'os',
    category: 'fact',
    content: "The user's laptop runs Arch Linux.",
    queries: ['what operating system is on my laptop', 'laptop OS'],
  },
  {
    attribute: 'tests',
    category: 'instruction',
    content: 'Never skip failing tests; fix them or ask first.',
    queries: ['what to do with failing tests', 'may I skip a broken test'],
  },
  {
    attribute: 'secrets',
    category: 'instruction',
    content: 'Do not print API keys or tokens in the terminal output.',
    queries: ['showing secrets in output', 'print the api key'],
  },
  {
    attribute: 'meeting',
    category: 'reminder',
    content: 'Standup with the platform team is every weekday at 9:30.',
    old: 'Standup with the platform team is every weekday at 10:00.',
    queries: ['what time is standup', 'daily platform team meeting'],
  },
  {
    attribute: 'phone',
    category: 'fact',
    content: "The user's work phone number ends in 4417.",
    queries: ['work phone', 'last digits of my office number'],
  },
  {
    attribute: 'diet',
    category: 'preference',
    content: 'The user is vegetarian and avoids fish.',
    queries: ['does the user eat meat', 'dinner restaurant dietary needs'],
  },
  {
    attribute: 'gpu',
    category: 'fact',
    content: 'The home workstation has an RTX 4090 GPU with 24 GB of memory.',
    queries: ['graphics card at home', 'how much VRAM do I have'],
  },
  {
    attribute: 'style',
    category: 'preference',
    content: 'Keep answers short: bullet points, no long introductions.',
    queries: ['answer length preference', 'how verbose should replies be'],
  },
  {
    attribute: 'timezone',
    category: 'fact',
    content: 'The user works in the Europe/Berlin time zone.',
    old: 'The user works in the Europe/Paris time zone.',
    queries: ['user timezone', 'what time is it for the user'],
  },
  {
    attribute: 'city-zh',
    category: 'fact',
    content: '用户现在住在杭州。',
    old: '用户现在住在上海。',
    queries: ['用户住在哪个城市', '我家在哪'],
    distractor: '用户的父母住在苏州。',
  },
  {
    attribute: 'food-zh',
    category: 'preference',
    content: '用户喜欢吃辣，尤其是川菜。',
    queries: ['用户的口味偏好', '点外卖 选什么菜'],
  },
  {
    attribute: 'review-zh',
    category: 'instruction',
    content: '提交代码前必须先运行类型检查和单元测试。',
    queries: ['提交之前要做什么', '代码提交 检查'],
  },
  {
    attribute: 'gym-zh',
    category: 'reminder',
    content: '提醒用户每周三晚上去健身房。',
    queries: ['健身 安排', '周三晚上有什么事'],
  },
  {
    attribute: 'car-zh',
    category: 'fact',
    content: '用户开一辆白色的比亚迪汉。',
    queries: ['用户的车是什么', '汽车 品牌 颜色'],
  },
  {
    attribute: 'sleep-zh',
    category: 'preference',
    content: '晚上十一点以后不要安排会议。',
    queries: ['会议 时间 限制', '深夜 开会'],
  },
  {
    attribute: 'kid-zh',
    category: 'fact',
    content: '用户的女儿叫小雨，今年六岁。',
    queries: ['用户 孩子 名字', '女儿 几岁'],
  },
  {
    attribute: 'notes-zh',
    category: 'instruction',
    content: '会议纪要统一保存到 docs/meetings 目录。',
    queries: ['会议记录 放在哪里', 'docs/meetings'],
  },
  {
    attribute: 'bank-zh',
    category: 'reminder',
    content: '每月十号提醒用户还信用卡。',
    queries: ['信用卡 还款 日期', '什么时候还款'],
  },
  {
    attribute: 'pet-zh',
    category: 'fact',
    content: '用户养了一只叫团子的橘猫。',
    old: '用户养了一只叫豆豆的柴犬。',
    queries: ['用户的宠物', '猫 叫什么名字'],
  },
];

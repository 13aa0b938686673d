import { describe, expect, it } from 'vitest';
import {
  digestOf,
  filePaths,
  keywords,
  pairKeywordCache,
  pairKeywords,
  scorePair,
  selectPairs,
} from '../../src/context/relevance.js';
import type { HistoryPair } from '../../src/context/types.js';

function pair(
  turnId: string,
  user: string,
  assistant: string,
  files: string[] = [],
  reasoning = '',
): HistoryPair {
  return { turnId, user, assistant, reasoning, files };
}

/** Twenty older turns on unrelated topics, oldest first. */
const PAIRS: HistoryPair[] = [
  pair('t01', 'Set up eslint for the project', 'Added an eslint config with the recommended rules.', [
    'eslint.config.js',
  ]),
  pair('t02', '数据库迁移脚本报错了，帮我看看', '迁移脚本里的数据库表名写错了，已经修好并重新运行迁移。', [
    'src/store/migrations.ts',
  ]),
  pair(
    't03',
    'Write a haiku about autumn leaves',
    'Crimson leaves descend / whispering to the cold earth / autumn says goodbye',
  ),
  pair(
    't04',
    'How do I center a div with flexbox?',
    'Use display:flex with justify-content and align-items set to center.',
  ),
  pair(
    't05',
    'The websocket reconnect logic drops messages',
    'Buffered outgoing messages while the websocket reconnects and flushed them after the handshake.',
    ['src/net/socket.ts'],
    'Reading the reconnect handler; the queue is cleared on close.',
  ),
  pair('t06', '把日志级别改成 debug', '已经把配置文件里的日志级别改成了 debug。', ['config/app.yaml']),
  pair(
    't07',
    'Explain the difference between TCP and UDP',
    'TCP is connection oriented and reliable; UDP is connectionless.',
  ),
  pair(
    't08',
    'Rename the function getUserName to fetchUserName',
    'Renamed getUserName to fetchUserName in 4 files.',
    ['src/users/name.ts'],
  ),
  pair('t09', '帮我写一个快速排序', '这是一个用递归实现的快速排序函数。'),
  pair('t10', 'Bump the node version in CI to 20', 'Updated the workflow to use node 20.', [
    '.github/workflows/ci.yml',
  ]),
  pair('t11', 'Translate this paragraph to French', 'Voici la traduction du paragraphe en français.'),
  pair('t12', '登录页面的按钮颜色不对', '按钮颜色改成了品牌蓝色。', ['web/login.css']),
  pair(
    't13',
    'Add pagination to the sessions API endpoint',
    'Added limit and cursor parameters to GET /sessions.',
    ['src/server/sessions.ts'],
  ),
  pair('t14', 'What is the capital of Australia?', 'Canberra.'),
  pair(
    't15',
    'Optimize the image resize pipeline',
    'Switched to streaming resize with sharp; memory use dropped by half.',
    ['src/media/resize.ts'],
  ),
  pair('t16', '解释一下什么是闭包', '闭包是函数和其词法环境的组合。'),
  pair(
    't17',
    'Fix the flaky retry test in the provider',
    'The retry test used real timers; made the backoff delay configurable.',
    ['test/llm/retry.test.ts'],
  ),
  pair('t18', 'Draw an ascii cat', ' /\\_/\\ \n( o.o )\n > ^ <'),
  pair('t19', 'Generate a UUID in bash', 'Use uuidgen or cat /proc/sys/kernel/random/uuid.'),
  pair(
    't20',
    'Summarize yesterday standup notes',
    'Yesterday: release prep, two bug fixes, planning for the sync feature.',
  ),
];

const ids = (selected: ReturnType<typeof selectPairs>) => selected.map((s) => `${s.pair.turnId}:${s.mode}`);

describe('keywords', () => {
  it('keeps English words of 3+ letters lowercased, without stop words', () => {
    expect([...keywords('The Quick brown fox is on the WALL and it can jump')]).toEqual([
      'quick',
      'brown',
      'fox',
      'wall',
      'jump',
    ]);
  });

  it('keeps identifiers whole and split on underscores and camelCase', () => {
    const words = keywords('call parseHTTPResponse with user_id');
    for (const word of ['parsehttpresponse', 'parse', 'http', 'response', 'user_id', 'user', 'call']) {
      expect(words.has(word), word).toBe(true);
    }
    expect(words.has('id')).toBe(false);
  });

  it('keeps numbers of 3+ digits only', () => {
    const words = keywords('issue 1234 on port 80, step 7');
    expect(words.has('1234')).toBe(true);
    expect(words.has('80')).toBe(false);
    expect(words.has('7')).toBe(false);
  });

  it('keeps Chinese words of 2+ characters and drops single characters', () => {
    const words = keywords('数据库迁移失败了');
    expect(words.has('迁移')).toBe(true);
    expect(words.has('失败')).toBe(true);
    expect(words.has('了')).toBe(false);
    for (const word of words) expect([...word].length).toBeGreaterThanOrEqual(2);
  });

  it('finds words the segmenter splits into single characters in any context', () => {
    // ICU's dictionary splits 重构 into 重|构; both texts must still share it.
    const query = keywords('请帮我重构登录模块');
    const stored = keywords('重构了登录模块的代码');
    expect(query.has('重构')).toBe(true);
    expect(stored.has('重构')).toBe(true);
    expect(query.has('登录')).toBe(true);
  });

  it('handles mixed text and empty text', () => {
    const words = keywords('修复 websocket 重连的问题');
    expect(words.has('websocket')).toBe(true);
    expect(words.has('修复')).toBe(true);
    expect(keywords('').size).toBe(0);
    expect(keywords('a an 的 了 ,.!').size).toBe(0);
  });
});

describe('filePaths', () => {
  it('finds path-like tokens and normalizes a leading ./', () => {
    expect(filePaths('Edit src/app.ts and ./a/b.py, then update README.md.')).toEqual([
      'src/app.ts',
      'a/b.py',
      'README.md',
    ]);
  });

  it('finds absolute, home and parent paths without an extension', () => {
    expect(filePaths('run /usr/bin/env, open ~/notes/todo and ../lib/util')).toEqual([
      '/usr/bin/env',
      '~/notes/todo',
      '../lib/util',
    ]);
  });

  it('ignores URLs, versions, abbreviations and plain words', () => {
    expect(filePaths('see https://example.com/page.html, version 1.2.3, e.g. this and/or that')).toEqual([]);
  });

  it('returns each path once', () => {
    expect(filePaths('`test/x.test.ts` then test/x.test.ts again')).toEqual(['test/x.test.ts']);
  });
});

describe('scorePair', () => {
  it('is the Jaccard index of the keyword sets', () => {
    const p = pair('x', 'alpha beta gamma', 'delta');
    // query {alpha, beta, omega} vs pair {alpha, beta, gamma, delta}: 2 / 5
    expect(scorePair(keywords('alpha beta omega'), [], p)).toBeCloseTo(0.4, 10);
    expect(scorePair(keywords('nothing shared'), [], p)).toBe(0);
    expect(scorePair(new Set(), [], pair('y', '', ''))).toBe(0);
  });

  it('counts the reasoning text of the pair', () => {
    const p = pair('x', 'fix it', 'done', [], 'the websocket queue was cleared');
    expect(scorePair(keywords('websocket queue'), [], p)).toBeGreaterThan(0);
  });

  it('boosts shared files to 0.4 + 0.1 per file, at most 0.9', () => {
    const p = pair('x', 'unrelated words here', 'more text', ['src/a.ts', './src/b.ts', '/repo/src/c.ts']);
    expect(scorePair(new Set(), ['src/a.ts'], p)).toBeCloseTo(0.5, 10);
    expect(scorePair(new Set(), ['src/a.ts', 'src/b.ts'], p)).toBeCloseTo(0.6, 10);
    // A trailing part of a path names the same file.
    expect(scorePair(new Set(), ['src/c.ts', 'a.ts'], p)).toBeCloseTo(0.6, 10);
    expect(scorePair(new Set(), ['other.ts'], p)).toBe(0);
    const many = pair('y', '', '', ['f1.ts', 'f2.ts', 'f3.ts', 'f4.ts', 'f5.ts', 'f6.ts', 'f7.ts']);
    expect(scorePair(new Set(), many.files, many)).toBeCloseTo(0.9, 10);
    // The boost never lowers a higher keyword score.
    const same = pair('z', 'alpha beta', '', ['src/a.ts']);
    expect(scorePair(keywords('alpha beta'), ['src/a.ts'], same)).toBe(1);
  });

  it('uses the given pair keywords instead of computing them', () => {
    const p = pair('x', 'alpha', 'beta');
    expect(scorePair(keywords('gamma'), [], p, new Set(['gamma']))).toBe(1);
  });
});

describe('selectPairs', () => {
  it('picks the pair about a Chinese query by its 2-character words', () => {
    const selected = selectPairs('数据库迁移失败', PAIRS);
    expect(selected.map((s) => s.pair.turnId)).toEqual(['t02']);
    expect(selected[0]!.score).toBeGreaterThanOrEqual(0.05);
  });

  it('picks the pair about an English query', () => {
    const selected = selectPairs('the websocket reconnect is losing messages again', PAIRS);
    expect(selected[0]?.pair.turnId).toBe('t05');
    expect(ids(selected)).toContain('t05:full');
    expect(selected.every((s) => s.score >= 0.05)).toBe(true);
  });

  it('finds identifiers across camelCase', () => {
    const selected = selectPairs('where is fetchUserName defined?', PAIRS);
    expect(selected.map((s) => s.pair.turnId)).toEqual(['t08']);
  });

  it('boosts a pair that touched a file the query names', () => {
    const selected = selectPairs('look at src/server/sessions.ts again', PAIRS);
    expect(ids(selected)).toEqual(['t13:full']);
    expect(selected[0]!.score).toBeCloseTo(0.5, 10);
  });

  it('keeps the chronological order and marks full and digest by threshold', () => {
    const pairs = [
      pair('old', 'alpha gamma delta epsilon', 'zeta eta theta iota'), // 1 shared of 10: 0.1 → digest
      pair('mid', 'nothing in common', 'at all'),
      pair('new', 'alpha beta', 'gamma'), // 2 shared of 4: 0.5 → full
    ];
    const selected = selectPairs('alpha beta omega', pairs);
    expect(ids(selected)).toEqual(['old:digest', 'new:full']);
    expect(selected[0]!.score).toBeCloseTo(0.1, 10);
    expect(selected[1]!.score).toBeCloseTo(0.5, 10);
    const strict = selectPairs('alpha beta omega', pairs, { full: 0.6, digest: 0.3 });
    expect(ids(strict)).toEqual(['new:digest']);
  });

  it('includes the single best pair in full when none reaches the digest threshold', () => {
    const selected = selectPairs('translate the haiku into Japanese verse', PAIRS, {
      digest: 0.5,
      full: 0.6,
    });
    expect(selected).toHaveLength(1);
    expect(selected[0]!.mode).toBe('full');
    expect(['t03', 't11']).toContain(selected[0]!.pair.turnId);
    expect(selected[0]!.score).toBeGreaterThan(0);
  });

  it('falls back to the latest pair when nothing matches at all', () => {
    const selected = selectPairs('zzzz qqqq', PAIRS);
    expect(ids(selected)).toEqual(['t20:full']);
    expect(selected[0]!.score).toBe(0);
    expect(selectPairs('zzzz', [])).toEqual([]);
  });

  it('rejects bad thresholds with a specific error', () => {
    expect(() => selectPairs('x', PAIRS, { full: 2 })).toThrow(/full threshold must be a number in \[0, 1\]/);
    expect(() => selectPairs('x', PAIRS, { digest: Number.NaN })).toThrow(/digest threshold/);
    expect(() => selectPairs('x', PAIRS, { full: 0.1, digest: 0.2 })).toThrow(/must not exceed full/);
  });

  it('scores 500 pairs with cached pair keywords', () => {
    const many: HistoryPair[] = [];
    for (let i = 0; i < 500; i++) {
      const base = PAIRS[i % PAIRS.length]!;
      many.push({ ...base, turnId: `m${i}`, assistant: `${base.assistant} (round ${i})` });
    }
    const first = selectPairs('数据库迁移失败', many);
    expect(first.map((s) => s.pair.turnId)).toEqual(many.filter((_, i) => i % 20 === 1).map((p) => p.turnId));
    for (const p of many) expect(pairKeywordCache.has(p)).toBe(true);
    // A second request reuses the cached sets: the same objects come back.
    const cached = pairKeywords(many[0]!);
    const again = selectPairs('websocket reconnect', many);
    expect(pairKeywords(many[0]!)).toBe(cached);
    expect(again.length).toBeGreaterThanOrEqual(25);
    expect(again.every((s) => s.pair.user === PAIRS[4]!.user)).toBe(true);
  });
});

describe('digestOf', () => {
  it('is one line: User: … → Assistant: …', () => {
    const digest = digestOf(pair('x', 'Rename   the\nfunction', 'Renamed it\n\nin 4 files.'));
    expect(digest).toBe('User: Rename the function → Assistant: Renamed it in 4 files.');
  });

  it('shortens each side to fit max, with an ellipsis', () => {
    const long = pair('x', 'question '.repeat(40), 'answer '.repeat(40));
    const digest = digestOf(long);
    expect([...digest].length).toBeLessThanOrEqual(160);
    expect(digest).toMatch(/^User: question .*… → Assistant: answer .*…$/);
    expect(digest).not.toContain('\n');
    const short = digestOf(long, 60);
    expect([...short].length).toBeLessThanOrEqual(60);
  });

  it('gives the room a short side leaves to the other side', () => {
    const digest = digestOf(pair('x', 'hi', 'answer '.repeat(40)));
    expect(digest.startsWith('User: hi → Assistant: answer')).toBe(true);
    expect([...digest].length).toBeGreaterThan(150);
    expect([...digest].length).toBeLessThanOrEqual(160);
  });

  it('cuts Chinese text by characters', () => {
    const digest = digestOf(pair('x', '数据库迁移失败'.repeat(20), '已经修好'.repeat(30)), 80);
    expect([...digest].length).toBeLessThanOrEqual(80);
    expect(digest).toContain('→ Assistant: 已经修好');
  });

  it('rejects a max too small for a digest', () => {
    expect(() => digestOf(pair('x', 'a', 'b'), 10)).toThrow(/max must be an integer ≥/);
  });
});

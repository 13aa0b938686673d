import { encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import {
  estimateMessage,
  estimateMessages,
  estimateText,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD,
  TOOL_CALL_OVERHEAD,
  TOOL_RESULT_OVERHEAD,
  TokenCalibrator,
} from '../../src/context/tokens.js';
import type { Message } from '../../src/llm/types.js';

/** Realistic samples of what goes through a context window. */
const SAMPLES: Record<string, string> = {
  englishProse: `Long sessions must stay inside any model's context window and lose nothing. When a conversation grows past a few hundred turns, the agent keeps the most recent exchanges verbatim, replaces older tool output with short placeholders, and folds the oldest turns into a written summary. The summary is produced by a cheaper model in the background, so the user never waits for it. Relevance filtering decides which of the older question-and-answer pairs are worth sending again: a pair that shares many keywords or files with the new message is included in full, a weaker match becomes a one-line digest, and everything else stays in the database until it is needed.`,
  typescript: `export function selectPairs(input: string, pairs: HistoryPair[], opts: SelectOptions = {}): Selected[] {
  const full = opts.full ?? 0.15;
  const digest = opts.digest ?? 0.05;
  const queryKeywords = keywords(input);
  const queryFiles = filePaths(input);
  const scored = pairs.map((pair) => ({ pair, score: scorePair(queryKeywords, queryFiles, pair) }));
  const kept: Selected[] = [];
  for (const { pair, score } of scored) {
    if (score >= full) kept.push({ pair, score, mode: 'full' });
    else if (score >= digest) kept.push({ pair, score, mode: 'digest' });
  }
  if (kept.length === 0 && scored.length > 0) {
    let best = scored[0]!;
    for (const s of scored) if (s.score >= best.score) best = s;
    return [{ ...best, mode: 'full' }];
  }
  return kept;
}`,
  python: `import sqlite3
from pathlib import Path

def load_history(db_path: Path, topic_id: int, limit: int = 50) -> list[dict]:
    """Return the newest L2 entries for a topic, oldest first."""
    with sqlite3.connect(db_path) as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute(
            "SELECT user, assistant, thinking, files FROM level2 WHERE topic_id = ? ORDER BY id DESC LIMIT ?",
            (topic_id, limit),
        ).fetchall()
    entries = [dict(row) for row in reversed(rows)]
    for entry in entries:
        entry["files"] = [f for f in (entry.get("files") or "").split(",") if f]
    return entries
`,
  json: JSON.stringify(
    {
      id: 'chatcmpl-9a8b7c6d',
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: {
                  name: 'read_file',
                  arguments: '{"path":"src/context/tokens.ts","offset":0,"limit":200}',
                },
              },
              {
                id: 'call_2',
                type: 'function',
                function: { name: 'grep', arguments: '{"pattern":"estimateMessage","glob":"src/**/*.ts"}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 1834, completion_tokens: 61, total_tokens: 1895 },
    },
    null,
    2,
  ),
  chineseProse: `长时间的会话必须始终保持在模型的上下文窗口之内，并且不能丢失任何信息。当对话增长到几百轮之后，智能体会原样保留最近的几轮交流，把较早的工具输出替换为简短的占位符，并把最早的轮次折叠成一段书面摘要。摘要由一个更便宜的模型在后台生成，因此用户永远不需要等待。相关性筛选决定哪些较早的问答对值得再次发送：与新消息共享许多关键词或文件的问答对会被完整地包含进来，较弱的匹配只保留一行摘要，其余的内容则留在数据库中，直到需要时再取出。`,
  mixed: `我在运行 npm test 的时候，test/context/build.test.ts 里的三个用例失败了，错误信息是 "TypeError: Cannot read properties of undefined (reading 'parts')"。看起来 buildContext 在处理孤立的 tool-result 消息时没有先检查对应的 tool-call。请帮我修复这个问题，并且补充一个回归测试，确保 placeholder 的格式是 [tool result omitted: N chars — callId]。另外，数据库迁移脚本 migrations.ts 在 WAL 模式下偶尔会报 SQLITE_BUSY，需要加上重试。`,
  markdown: `## Installation

1. Install Node.js 20 or newer.
2. Run \`npm install -g tea-agent\`.
3. Set \`OPENAI_API_KEY\` (or point \`OPENAI_BASE_URL\` at a local Ollama server).

| Command | What it does |
| --- | --- |
| \`tea\` | Opens the interactive terminal UI |
| \`tea -p "fix the failing test"\` | Runs one prompt and prints the answer |
| \`tea serve\` | Starts the HTTP API on 127.0.0.1:8080 |
`,
  log: `2025-03-14T09:12:44.118Z INFO  server listening on http://127.0.0.1:8080
2025-03-14T09:12:45.902Z DEBUG session 7f3c2a1e prompt received (412 chars)
2025-03-14T09:12:46.311Z WARN  provider openai: 429 Too Many Requests, retrying in 1200 ms (attempt 1/5)
2025-03-14T09:12:47.640Z INFO  tool read_file ok in 3 ms (src/context/build.ts, 9381 bytes)
2025-03-14T09:12:48.007Z ERROR tool bash failed: exit code 1 (npm run typecheck)
`,
};

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });

describe('estimateText', () => {
  it.each(Object.entries(SAMPLES))('%s is within ±35%% of a real tokenizer', (_name, text) => {
    const real = encode(text).length;
    const estimate = estimateText(text);
    expect(real).toBeGreaterThan(50);
    expect(estimate).toBeGreaterThanOrEqual(Math.floor(real * 0.65));
    expect(estimate).toBeLessThanOrEqual(Math.ceil(real * 1.35));
  });

  it('is 0 for empty text and at least 1 for any other text', () => {
    expect(estimateText('')).toBe(0);
    expect(estimateText('a')).toBe(1);
    expect(estimateText(' ')).toBe(1);
  });

  it('costs Chinese far more per character than English', () => {
    const chinese = '数据库迁移失败了'.repeat(30); // 240 ideographs
    const english = 'databases'.repeat(27); // 243 letters
    expect(estimateText(chinese)).toBe(160); // 1 token per 1.5 chars
    expect(estimateText(english)).toBeLessThan(60);
  });

  it('counts ideographs outside the BMP once per code point', () => {
    const rare = '𠀀𠀁𠀂'; // U+20000.., surrogate pairs
    expect(rare.length).toBe(6);
    expect(estimateText(rare)).toBe(2); // 3 × (1/1.5)
  });

  it('charges long runs of spaces much less than spaces between words', () => {
    const padding = ' '.repeat(1600);
    expect(estimateText(padding)).toBeLessThan(110);
    // Still a cost: padding is not free.
    expect(estimateText(`a${padding}b`)).toBeGreaterThan(estimateText('a b'));
  });

  it('makes punctuation-heavy text cost more than the same number of letters', () => {
    expect(estimateText('{"a":[1,2],"b":{}}'.repeat(20))).toBeGreaterThan(
      estimateText('abcdefghijklmnopqr'.repeat(20)),
    );
  });

  it('grows with the text', () => {
    const one = estimateText(SAMPLES.englishProse!);
    const two = estimateText(`${SAMPLES.englishProse!} ${SAMPLES.englishProse!}`);
    expect(two).toBeGreaterThanOrEqual(2 * one - 1);
    expect(two).toBeLessThanOrEqual(2 * one + 1);
  });
});

describe('estimateMessage', () => {
  it('adds the per-message overhead to text and thinking parts', () => {
    const text = SAMPLES.typescript!;
    expect(estimateMessage(user(text))).toBe(MESSAGE_OVERHEAD + estimateText(text));
    const assistant: Message = {
      role: 'assistant',
      parts: [
        { type: 'thinking', text: 'Let me look at the file first.' },
        { type: 'text', text: 'Reading it now.' },
      ],
    };
    expect(estimateMessage(assistant)).toBe(
      MESSAGE_OVERHEAD + estimateText('Let me look at the file first.') + estimateText('Reading it now.'),
    );
    expect(estimateMessage({ role: 'user', parts: [] })).toBe(MESSAGE_OVERHEAD);
  });

  it('charges each image a fixed cost, whatever its size', () => {
    const small: Message = { role: 'user', parts: [{ type: 'image', mediaType: 'image/png', data: 'AAAA' }] };
    const large: Message = {
      role: 'user',
      parts: [
        { type: 'text', text: 'What is in these pictures?' },
        { type: 'image', mediaType: 'image/png', data: 'A'.repeat(200_000) },
        { type: 'image', mediaType: 'image/jpeg', url: 'https://example.com/cat.jpg' },
      ],
    };
    expect(estimateMessage(small)).toBe(MESSAGE_OVERHEAD + IMAGE_TOKENS);
    expect(estimateMessage(large)).toBe(
      MESSAGE_OVERHEAD + estimateText('What is in these pictures?') + 2 * IMAGE_TOKENS,
    );
  });

  it('counts a tool call by name and JSON arguments', () => {
    const args = { path: 'src/context/tokens.ts', offset: 0, limit: 200, pattern: '数据库' };
    const call: Message = {
      role: 'assistant',
      parts: [{ type: 'tool-call', id: 'call_1', name: 'read_file', args }],
    };
    expect(estimateMessage(call)).toBe(
      MESSAGE_OVERHEAD + TOOL_CALL_OVERHEAD + estimateText('read_file') + estimateText(JSON.stringify(args)),
    );
    const bigger: Message = {
      role: 'assistant',
      parts: [
        { type: 'tool-call', id: 'call_1', name: 'read_file', args: { ...args, content: SAMPLES.python } },
      ],
    };
    expect(estimateMessage(bigger)).toBeGreaterThan(estimateMessage(call) + 100);
  });

  it('counts tool results by their output plus a small overhead, one per result', () => {
    const output = SAMPLES.log!;
    const tool: Message = {
      role: 'tool',
      parts: [
        { type: 'tool-result', callId: 'call_1', name: 'bash', output, isError: false },
        { type: 'tool-result', callId: 'call_2', name: 'bash', output: '', isError: true },
      ],
    };
    expect(estimateMessage(tool)).toBe(MESSAGE_OVERHEAD + 2 * TOOL_RESULT_OVERHEAD + estimateText(output));
  });

  it('caches by message object and treats a new object as a new message', () => {
    const message = user('first version of the text');
    const first = estimateMessage(message);
    // Mutating a message is outside the contract; the cache shows it keeps the first estimate.
    (message.parts[0] as { text: string }).text = SAMPLES.englishProse!;
    expect(estimateMessage(message)).toBe(first);
    const copy: Message = { role: 'user', parts: [{ type: 'text', text: SAMPLES.englishProse! }] };
    expect(estimateMessage(copy)).toBe(MESSAGE_OVERHEAD + estimateText(SAMPLES.englishProse!));
  });

  it('estimates a long history again cheaply and identically', () => {
    const history: Message[] = [];
    for (let i = 0; i < 500; i++) history.push(user(`${SAMPLES.mixed!} turn ${i}`));
    const first = estimateMessages(history);
    const again = estimateMessages(history);
    expect(again).toBe(first);
    expect(first).toBe(history.reduce((sum, m) => sum + estimateMessage(m), 0));
    expect(estimateMessages([])).toBe(0);
  });
});

describe('TokenCalibrator', () => {
  it('starts at factor 1 and estimates like estimateMessage', () => {
    const calibrator = new TokenCalibrator();
    const message = user(SAMPLES.json!);
    expect(calibrator.factor('gpt-4o')).toBe(1);
    expect(calibrator.estimator('gpt-4o')(message)).toBe(estimateMessage(message));
  });

  it('converges toward the reported ratio, per model', () => {
    const calibrator = new TokenCalibrator({ alpha: 0.3 });
    calibrator.observe('qwen', 1000, 1000); // first sample sets the factor
    for (let i = 0; i < 30; i++) calibrator.observe('qwen', 1000, 1300);
    expect(calibrator.factor('qwen')).toBeCloseTo(1.3, 3);
    expect(calibrator.samples('qwen')).toBe(31);
    expect(calibrator.factor('other')).toBe(1);
    // One step moves alpha of the way.
    const steps = new TokenCalibrator({ alpha: 0.5 });
    steps.observe('m', 1000, 1000);
    steps.observe('m', 1000, 1400);
    expect(steps.factor('m')).toBeCloseTo(1.2, 6);
  });

  it('clamps the factor and ignores tiny or invalid samples', () => {
    const calibrator = new TokenCalibrator({ min: 0.5, max: 2 });
    calibrator.observe('m', 1000, 10_000);
    expect(calibrator.factor('m')).toBe(2);
    calibrator.observe('n', 1000, 10);
    expect(calibrator.factor('n')).toBe(1); // reported < 50: ignored
    calibrator.observe('n', 40, 400);
    calibrator.observe('n', Number.NaN, 400);
    calibrator.observe('n', 1000, Number.POSITIVE_INFINITY);
    expect(calibrator.samples('n')).toBe(0);
    for (let i = 0; i < 20; i++) calibrator.observe('n', 1000, 100);
    expect(calibrator.factor('n')).toBe(0.5);
  });

  it('applies the factor in its estimator and follows later observations', () => {
    const calibrator = new TokenCalibrator();
    const estimate = calibrator.estimator('deepseek');
    const message = user(SAMPLES.chineseProse!);
    const base = estimateMessage(message);
    calibrator.observe('deepseek', 1000, 1500);
    expect(estimate(message)).toBe(Math.ceil(base * 1.5));
  });

  it('round-trips through JSON', () => {
    const calibrator = new TokenCalibrator({ alpha: 0.2, min: 0.6, max: 1.8 });
    calibrator.observe('a', 1000, 1200);
    calibrator.observe('a', 1000, 1100);
    calibrator.observe('b', 500, 400);
    const restored = TokenCalibrator.from(JSON.parse(JSON.stringify(calibrator)));
    expect(restored.toJSON()).toEqual(calibrator.toJSON());
    expect(restored.factor('a')).toBeCloseTo(1.18, 6);
    expect(restored.samples('a')).toBe(2);
    expect(restored.alpha).toBe(0.2);
    expect(restored.max).toBe(1.8);
  });

  it('rejects bad options and bad saved state with specific errors', () => {
    expect(() => new TokenCalibrator({ alpha: 0 })).toThrow(/alpha must be in \(0, 1\]/);
    expect(() => new TokenCalibrator({ min: 2, max: 1 })).toThrow(/max must be in \[2,/);
    expect(() => TokenCalibrator.from(null)).toThrow(/expected an object/);
    expect(() => TokenCalibrator.from({ models: [] })).toThrow(/"models" must be an object/);
    expect(() => TokenCalibrator.from({ models: { gpt: { factor: 'x' } } })).toThrow(
      /models\["gpt"\]\.factor must be a finite number/,
    );
    expect(() => TokenCalibrator.from({ max: 2, models: { gpt: { factor: 9, samples: 1 } } })).toThrow(
      /models\["gpt"\]\.factor must be in \[0\.5, 2\]/,
    );
    expect(TokenCalibrator.from({}).factor('any')).toBe(1);
  });
});

/** The ingest judge: a tolerant reader of the model's verdict, and the real call on the OpenAI wire. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import { hashContent } from '../../src/memory/ingest.js';
import { JUDGE_MAX_CANDIDATES, judgePrompt, modelJudge, parseJudgement } from '../../src/memory/judge.js';
import type { Memory } from '../../src/memory/types.js';
import { modelInfo } from '../support/harness.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { mem } from './memory-factory.js';

/** A stored fact said on 2025-01-<id>. */
const stored = (id: number, content: string): Memory =>
  mem(id, {
    content,
    contentHash: hashContent(content),
    createdAt: Date.UTC(2025, 0, id),
    validFrom: Date.UTC(2025, 0, id),
  });

describe('parseJudgement', () => {
  const shown = [3, 7];
  it.each([
    [
      '{"decision":"update","id":7,"subject":"Heron","attribute":"port","value":"9191"}',
      { decision: 'update', id: 7, subject: 'Heron', attribute: 'port', value: '9191' },
    ],
    ['```json\n{"decision": "duplicate", "id": 3}\n```', { decision: 'duplicate', id: 3 }],
    [
      'Sure! Here is my answer: {"decision": "add", "id": null, "subject": "Osprey"} Hope it helps.',
      { decision: 'add', subject: 'Osprey' },
    ],
    ["{decision: 'update', id: '7',}", { decision: 'update', id: 7 }],
    ['[{"decision":"update","id":"#3"}]', { decision: 'update', id: 3 }],
    ['{"action":"replace","memory_id":7}', { decision: 'update', id: 7 }],
    [
      '<think>hmm, 7 looks like the same port</think>{"decision":"update","id":7}',
      { decision: 'update', id: 7 },
    ],
  ])('reads %s', (text, want) => {
    expect(parseJudgement(text, shown)).toEqual(want);
  });

  it.each([
    ['', 'empty'],
    ['I think it is an update of the first one.', 'prose without JSON'],
    ['{"decision":"update"}', 'an update without an id'],
    ['{"decision":"update","id":99}', 'an id it was not shown'],
    ['{"decision":"merge","id":3}', 'an unknown decision'],
    ['{"decision":"duplicate","id":"three"}', 'an id that is no number'],
    ['{"decision":', 'a cut-off object'],
  ])('gives up on %j (%s)', (text) => {
    expect(parseJudgement(text, shown)).toBeUndefined();
  });
});

describe('modelJudge on the wire', () => {
  let server: ModelServer;
  beforeEach(async () => {
    server = await startModelServer();
  });
  afterEach(async () => {
    await server.close();
  });
  const judge = (timeoutMs?: number) =>
    modelJudge(
      new OpenAICompatibleProvider(modelInfo(server.openaiBaseUrl, { model: 'cheap' }), { apiKey: 'k' }),
      {
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      },
    );
  const candidates = [
    stored(3, 'The staging API of Heron runs on port 9090.'),
    stored(7, 'The staging API of Osprey runs on port 7000.'),
  ];

  it('shows the statement and the candidates with ids and dates, and returns the verdict', async () => {
    server.script(
      reply().text(
        '{"decision":"update","id":3,"subject":"Heron staging API","attribute":"port","value":"9191"}',
      ),
    );
    const verdict = await judge().judge({
      statement: "Heron's staging API now runs on port 9191.",
      category: 'fact',
      candidates,
    });
    expect(verdict).toEqual({
      decision: 'update',
      id: 3,
      subject: 'Heron staging API',
      attribute: 'port',
      value: '9191',
    });
    const sent = wireMessages(server.requests[0]!.body).map(wireText).join('\n');
    expect(sent).toContain('[id=3] (fact, since 2025-01-03) The staging API of Heron runs on port 9090.');
    expect(sent).toContain('[id=7] (fact, since 2025-01-07) The staging API of Osprey runs on port 7000.');
    expect(sent).toContain("NEW (fact): Heron's staging API now runs on port 9191.");
    expect(sent).toMatch(/Different subjects .* are never the same fact/);
  });

  it('gives undefined (the caller keeps its own decision) on garbage, HTTP errors and silence', async () => {
    server.script(reply().text('Probably an update.'));
    expect(await judge().judge({ statement: 'x y z', category: 'fact', candidates })).toBeUndefined();
    server.script(reply().error(500));
    expect(await judge().judge({ statement: 'x y z', category: 'fact', candidates })).toBeUndefined();
    server.script(reply().hang());
    expect(await judge(200).judge({ statement: 'x y z', category: 'fact', candidates })).toBeUndefined();
  });

  it('asks nothing when there is nothing to compare with', async () => {
    expect(await judge().judge({ statement: 'x', category: 'fact', candidates: [] })).toBeUndefined();
    expect(server.requests).toHaveLength(0);
  });

  it('the prompt shows at most a handful of candidates', () => {
    const many = Array.from({ length: 30 }, (_, i) => stored(i + 1, `fact number ${i + 1}`));
    const { user } = judgePrompt({ statement: 's', category: 'fact', candidates: many });
    expect(user.match(/\[id=/g)).toHaveLength(JUDGE_MAX_CANDIDATES);
  });
});

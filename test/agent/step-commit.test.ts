/**
 * What another process (`tea sessions show`, the web UI of a `tea serve` on the same
 * home) sees while a turn runs: a model call's message, its usage and the records of
 * the tool calls it asks for are committed together, so a reader never finds a call
 * in the transcript that has no record yet. Checked on every write the turn makes,
 * through a second connection that sees committed data only.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collect, statesOf } from '../support/collect.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';

let h: Harness;
let reader: Database.Database;
beforeEach(async () => {
  h = await createHarness();
  reader = new Database(h.dbPath, { readonly: true });
});
afterEach(async () => {
  reader.close();
  await h.close();
});

/** Calls in committed assistant messages that have no committed record, as `seq:callId`. */
const CALLS_WITHOUT_RECORD = `
  SELECT m.seq || ':' || json_extract(j.value, '$.id')
  FROM messages m, json_each(m.parts) j
  WHERE m.role = 'assistant' AND json_extract(j.value, '$.type') = 'tool-call'
    AND NOT EXISTS (SELECT 1 FROM tool_calls t
                    WHERE t.session_id = m.session_id AND t.call_id = json_extract(j.value, '$.id'))`;

/** Runs `check` inside every insert and update of messages, tool calls and usage rows. */
function onEveryWrite(db: Database.Database, check: () => void): void {
  db.function('tea_test_check', () => {
    check();
    return null;
  });
  for (const table of ['messages', 'tool_calls', 'usage']) {
    for (const op of ['INSERT', 'UPDATE']) {
      db.exec(
        `CREATE TEMP TRIGGER check_${op}_${table} AFTER ${op} ON main.${table} BEGIN SELECT tea_test_check(); END`,
      );
    }
  }
}

describe('a step is committed with the records of its tool calls', () => {
  it('another connection never sees an assistant message whose calls have no record', async () => {
    h.server.script(
      reply()
        .text('Two at once.')
        .toolCall('sleep_read', { label: 'a', ms: 0 })
        .toolCall('sleep_read', { label: 'b', ms: 0 })
        .usage(10, 2),
      reply().text('One more.').toolCall('sleep_write', { label: 'c', ms: 0 }).usage(12, 2),
      reply().text('Done.').usage(14, 1),
    );
    const orphans = reader.prepare<[], string>(CALLS_WITHOUT_RECORD).pluck();
    const seen: string[] = [];
    let checks = 0;
    onEveryWrite(h.store.db, () => {
      checks++;
      seen.push(...orphans.all());
    });

    const session = h.agent().newSession();
    const events = await collect(session.prompt('go'));

    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'completed', text: 'Done.' });
    expect(checks).toBeGreaterThan(10);
    expect(seen).toEqual([]);
    // Every call went through its states, and the store holds each one's last.
    const calls = h.store.toolCalls.list(session.id);
    expect(calls.map((c) => [c.name, c.state])).toEqual([
      ['sleep_read', 'completed'],
      ['sleep_read', 'completed'],
      ['sleep_write', 'completed'],
    ]);
    for (const c of calls) expect(statesOf(events, c.callId)).toEqual(['pending', 'running', 'completed']);
    expect(h.store.usage.totals(session.id)).toMatchObject({ inputTokens: 36, outputTokens: 5 });
  });
});

/**
 * Long texts are stored in pieces, a piece at a time (the process keeps answering
 * while a pasted megabyte is written), and come back whole; a message is whole or
 * absent; pieces of a write that died are cleared.
 */
import { describe, expect, it } from 'vitest';
import type { Part } from '../../src/llm/types.js';
import { Store } from '../../src/store/index.js';
import { PIECES_ABOVE_CHARS } from '../../src/store/text-pieces.js';
import { steppingClock, useStore } from './helpers.js';

let clock = 1_700_000_000_000;
const openStore = useStore({ now: () => clock++ });

/** Text of about `chars` characters with CJK, emoji (surrogate pairs) and quotes. */
function longText(chars: number): string {
  const line = 'The deploy of "billing" failed 部署失败 😀 \\ end\n';
  return line.repeat(Math.ceil(chars / line.length));
}

const pieceRows = (store: Store) =>
  store.db
    .prepare(
      `SELECT p.spill_id, p.idx, o.message_id FROM message_text_pieces p
       LEFT JOIN message_text_owners o ON o.spill_id = p.spill_id`,
    )
    .all() as Array<{
    spill_id: string;
    message_id: number | null;
  }>;

describe('long message texts', () => {
  it('come back exactly, through get, list, tail and a fresh connection', async () => {
    const { store, path } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const big = longText(PIECES_ABOVE_CHARS * 4 + 17);
    const parts: Part[] = [
      { type: 'text', text: big },
      { type: 'text', text: 'a short second part' },
      { type: 'text', text: `${big}tail` },
    ];
    const m = await store.messages.appendYielding('s', { turnId: 't', role: 'user', parts });
    expect(m.parts).toEqual(parts);
    expect(store.messages.get(m.id)!.parts).toEqual(parts);
    expect(store.messages.list('s')[0]!.parts).toEqual(parts);
    expect(store.messages.tail('s').last!.parts).toEqual(parts);
    // the message row itself stays small: the texts are in pieces linked to it
    const raw = store.db.prepare('SELECT length(parts) AS n FROM messages WHERE id = ?').get(m.id) as {
      n: number;
    };
    expect(raw.n).toBeLessThan(500);
    const rows = pieceRows(store);
    expect(rows.length).toBeGreaterThan(8);
    expect(new Set(rows.map((r) => r.message_id))).toEqual(new Set([m.id]));
    store.close();
    const again = Store.open(path, { now: steppingClock() });
    try {
      expect(again.messages.list('s')[0]!.parts).toEqual(parts);
    } finally {
      again.close();
    }
  });

  it('short messages are stored as before, with no pieces', async () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const parts: Part[] = [{ type: 'text', text: 'x'.repeat(PIECES_ABOVE_CHARS) }];
    const m = await store.messages.appendYielding('s', { turnId: 't', role: 'user', parts });
    expect(store.messages.get(m.id)!.parts).toEqual(parts);
    expect(pieceRows(store)).toEqual([]);
  });

  it('leaves nothing when the message cannot be stored, and keeps seq gap-free', async () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const parts: Part[] = [{ type: 'text', text: longText(PIECES_ABOVE_CHARS * 2) }];
    await expect(
      store.messages.appendYielding('nobody', { turnId: 't', role: 'user', parts }),
    ).rejects.toMatchObject({ code: 'not-found' });
    expect(pieceRows(store)).toEqual([]);
    await store.messages.appendYielding('s', { turnId: 't', role: 'user', parts });
    const after = store.messages.append('s', {
      turnId: 't',
      role: 'assistant',
      parts: [{ type: 'text', text: 'ok' }],
    });
    expect(after.seq).toBe(2);
  });

  it('go with their session', async () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    await store.messages.appendYielding('s', {
      turnId: 't',
      role: 'user',
      parts: [{ type: 'text', text: longText(PIECES_ABOVE_CHARS * 2) }],
    });
    expect(pieceRows(store).length).toBeGreaterThan(0);
    store.sessions.delete('s');
    expect(pieceRows(store)).toEqual([]);
  });

  it('clears pieces of a write that died an hour ago, never those of a write still under way', async () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const insert = store.db.prepare(
      'INSERT INTO message_text_pieces (spill_id, idx, text, created_at) VALUES (?, 0, ?, ?)',
    );
    insert.run('dead', 'left by a killed process', clock - 2 * 60 * 60 * 1000);
    insert.run('writing', 'another process is writing this', clock - 60 * 1000);
    await store.messages.appendYielding('s', {
      turnId: 't',
      role: 'user',
      parts: [{ type: 'text', text: longText(PIECES_ABOVE_CHARS * 2) }],
    });
    const ids = new Set(pieceRows(store).map((r) => r.spill_id));
    expect(ids.has('dead')).toBe(false);
    expect(ids.has('writing')).toBe(true);
  });

  it('are found by text search, inside the pieces too', async () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const needle = 'needle-in-the-middle-42';
    const big = `${longText(PIECES_ABOVE_CHARS * 2)}${needle}${longText(PIECES_ABOVE_CHARS)}`;
    const m = await store.messages.appendYielding('s', {
      turnId: 't',
      role: 'user',
      parts: [{ type: 'text', text: big }],
    });
    store.messages.append('s', {
      turnId: 't',
      role: 'assistant',
      parts: [{ type: 'text', text: 'nothing here' }],
    });
    const found = store.messages.findText(`%${needle}%`, 10);
    expect(found.map((f) => f.id)).toEqual([m.id]);
    expect((found[0]!.parts[0] as { text: string }).text).toBe(big);
  });

  it('are written with the event loop free between pieces', async () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    let ticks = 0;
    const timer = setInterval(() => {
      ticks++;
    }, 0);
    try {
      await store.messages.appendYielding('s', {
        turnId: 't',
        role: 'user',
        parts: [{ type: 'text', text: longText(5 * 1024 * 1024) }],
      });
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(10);
  });
});

import { describe, expect, it } from 'vitest';
import type { Part } from '../../src/llm/types.js';
import { Store } from '../../src/store/index.js';
import { steppingClock, storeError, useStore } from './helpers.js';

const openStore = useStore({ now: steppingClock() });
const text = (t: string): Part[] => [{ type: 'text', text: t }];

describe('messages', () => {
  it('appends with a gap-free seq per session and lists in seq order', () => {
    const { store } = openStore();
    store.sessions.create({ id: 'a', cwd: '/w' });
    store.sessions.create({ id: 'b', cwd: '/w' });
    const a1 = store.messages.append('a', { turnId: 't1', role: 'user', parts: text('a one') });
    const b1 = store.messages.append('b', { turnId: 't1', role: 'user', parts: text('b one') });
    const a2 = store.messages.append('a', { turnId: 't1', role: 'assistant', parts: text('a two') });
    const a3 = store.messages.append('a', { turnId: 't2', role: 'user', parts: text('a three') });
    expect([a1.seq, a2.seq, a3.seq, b1.seq]).toEqual([1, 2, 3, 1]);
    expect(a2).toMatchObject({ sessionId: 'a', turnId: 't1', role: 'assistant', status: 'complete' });

    const listed = store.messages.list('a');
    expect(listed).toEqual([a1, a2, a3]);
    expect(store.messages.list('a', { afterSeq: 1 }).map((m) => m.seq)).toEqual([2, 3]);
    expect(store.messages.list('a', { afterSeq: 1, limit: 1 }).map((m) => m.seq)).toEqual([2]);
    expect(store.messages.list('a', { afterSeq: 3 })).toEqual([]);
    expect(store.messages.count('a')).toBe(3);
    expect(store.messages.count('b')).toBe(1);
    expect(store.messages.count('nobody')).toBe(0);
  });

  it('continues the seq when two connections write to the same file', () => {
    const { store, path } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const other = Store.open(path);
    try {
      const seqs = [store, other, other, store].map(
        (writer, i) => writer.messages.append('s', { turnId: 't', role: 'user', parts: text(`${i}`) }).seq,
      );
      expect(seqs).toEqual([1, 2, 3, 4]);
      expect(store.messages.list('s').map((m) => m.parts)).toEqual(['0', '1', '2', '3'].map(text));
    } finally {
      other.close();
    }
  });

  it('bumps the session updatedAt on append', () => {
    const { store } = openStore();
    const s = store.sessions.create({ id: 's', cwd: '/w' });
    const m = store.messages.append('s', { turnId: 't', role: 'user', parts: text('hi') });
    expect(store.sessions.get('s')!.updatedAt).toBeGreaterThanOrEqual(m.createdAt);
    expect(store.sessions.get('s')!.updatedAt).toBeGreaterThan(s.updatedAt);
  });

  it("appendInTransaction writes as one part of the caller's transaction, and alone outside one", () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const first = store.messages.appendInTransaction('s', {
      turnId: 't',
      role: 'user',
      parts: text('alone'),
    });
    expect(first.seq).toBe(1);
    // Part of a transaction that commits: seq continues, the session is bumped with it.
    const before = store.sessions.get('s')!.updatedAt;
    const [a, b] = store.db.transaction(() => [
      store.messages.appendInTransaction('s', { turnId: 't', role: 'assistant', parts: text('one') }),
      store.messages.appendInTransaction('s', { turnId: 't', role: 'tool', parts: text('two') }),
    ])();
    expect([a!.seq, b!.seq]).toEqual([2, 3]);
    expect(store.sessions.get('s')!.updatedAt).toBe(b!.createdAt);
    expect(b!.createdAt).toBeGreaterThan(before);
    // A transaction that throws after it keeps none of its writes.
    expect(() =>
      store.db.transaction(() => {
        store.messages.appendInTransaction('s', { turnId: 't', role: 'assistant', parts: text('lost') });
        throw new Error('later write failed');
      })(),
    ).toThrow('later write failed');
    expect(store.messages.list('s').map((m) => m.parts)).toEqual(['alone', 'one', 'two'].map(text));
    expect(store.sessions.get('s')!.updatedAt).toBe(b!.createdAt);
    // Bad input is refused as by append, and nothing is written.
    expect(() =>
      store.db.transaction(() =>
        store.messages.appendInTransaction('nobody', { turnId: 't', role: 'user', parts: text('x') }),
      )(),
    ).toThrow(/session not found: 'nobody'/);
    expect(store.messages.count('s')).toBe(3);
  });

  it('checkpoints a partial assistant draft and then completes it', () => {
    const { store, path } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const draft = store.messages.append('s', {
      turnId: 't',
      role: 'assistant',
      parts: text('Hel'),
      status: 'partial',
    });
    expect(draft.status).toBe('partial');
    store.messages.update(draft.id, { parts: text('Hello, wor') });
    expect(store.messages.get(draft.id)).toMatchObject({ status: 'partial', parts: text('Hello, wor') });

    store.messages.update(draft.id, { parts: text('Hello, world'), status: 'complete' });
    store.close();
    const reopened = Store.open(path);
    try {
      expect(reopened.messages.list('s')).toEqual([
        { ...draft, parts: text('Hello, world'), status: 'complete' },
      ]);
      reopened.messages.update(draft.id, { status: 'partial' });
      expect(reopened.messages.get(draft.id)?.parts).toEqual(text('Hello, world')); // parts kept
    } finally {
      reopened.close();
    }
  });

  it('round-trips all five part kinds exactly', () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const parts: Part[] = [
      { type: 'text', text: 'héllo "quoted" \n\t 漢字 🍵' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'image', mediaType: 'image/jpeg', url: 'https://example.com/a.jpg' },
      { type: 'thinking', text: 'let me think', signature: 'sig-123' },
      {
        type: 'tool-call',
        id: 'call_1',
        name: 'edit_file',
        args: { path: 'a.ts', edits: [{ old: 'x', new: 'y' }], dry: false, n: 1.5, none: null },
      },
      { type: 'tool-call', id: 'call_2', name: 'bad', args: {}, argsError: 'unexpected token' },
      { type: 'tool-result', callId: 'call_1', name: 'edit_file', output: 'ok\n', isError: false },
      { type: 'tool-result', callId: 'call_2', name: 'bad', output: '[ERROR] bad args', isError: true },
    ];
    const stored = store.messages.append('s', { turnId: 't', role: 'assistant', parts });
    expect(stored.parts).toEqual(parts);
    expect(store.messages.list('s')[0]?.parts).toEqual(parts);
    expect(store.messages.get(stored.id)?.parts).toEqual(parts);
  });

  it('rejects bad input with specific errors and writes nothing', () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const missing = storeError(() =>
      store.messages.append('ghost', { turnId: 't', role: 'user', parts: text('x') }),
    );
    expect(missing.code).toBe('not-found');
    expect(missing.message).toBe("cannot append message: session not found: 'ghost'");

    const badRole = storeError(() =>
      store.messages.append('s', { turnId: 't', role: 'robot' as 'user', parts: text('x') }),
    );
    expect(badRole.message).toMatch(/role must be one of system, user, assistant, tool, got "robot"/);

    const badPart = storeError(() =>
      store.messages.append('s', {
        turnId: 't',
        role: 'user',
        parts: [{ type: 'text', text: 'ok' }, { type: 'video' } as unknown as Part],
      }),
    );
    expect(badPart.message).toMatch(/message part 1 has unknown type "video"/);

    const notArray = storeError(() =>
      store.messages.append('s', { turnId: 't', role: 'user', parts: 'hi' as unknown as Part[] }),
    );
    expect(notArray.message).toMatch(/parts must be an array/);
    expect(
      storeError(() => store.messages.append('s', { turnId: '', role: 'user', parts: text('x') })).message,
    ).toMatch(/turnId must be a non-empty string/);
    expect(
      storeError(() =>
        store.messages.append('s', {
          turnId: 't',
          role: 'user',
          parts: text('x'),
          status: 'done' as 'complete',
        }),
      ).message,
    ).toMatch(/status must be 'complete' or 'partial', got "done"/);
    expect(store.messages.count('s')).toBe(0);

    const updateMissing = storeError(() => store.messages.update(999, { status: 'complete' }));
    expect(updateMissing.code).toBe('not-found');
    expect(updateMissing.message).toBe('message not found: 999');
  });

  it('a failed update leaves the stored draft as it was', () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const m = store.messages.append('s', {
      turnId: 't',
      role: 'assistant',
      parts: text('keep'),
      status: 'partial',
    });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const err = storeError(() =>
      store.messages.update(m.id, {
        parts: [{ type: 'tool-call', id: 'c', name: 'n', args: cyclic }],
        status: 'complete',
      }),
    );
    expect(err.message).toMatch(/cannot be serialized as JSON/);
    expect(store.messages.get(m.id)).toMatchObject({ parts: text('keep'), status: 'partial' });
  });
});

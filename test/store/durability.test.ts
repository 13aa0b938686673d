import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';
import { useTempDirs } from './helpers.js';

const tempDir = useTempDirs();
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/append-loop.ts', import.meta.url));

/** Runs the append loop in a child and SIGKILLs it once it has printed `killAfter` seqs. */
function runAndKill(dbPath: string, sessionId: string, killAfter: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, dbPath, sessionId], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const printed: number[] = [];
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) printed.push(Number(line));
      if (printed.length >= killAfter && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') {
        reject(new Error(`child was not killed (exit ${code}, signal ${signal}): ${stderr}`));
      } else {
        resolve(printed);
      }
    });
  });
}

describe('durability', () => {
  it('keeps every message a SIGKILLed writer reported, and the file stays sound', async () => {
    const dbPath = join(tempDir(), 'tea.db');
    const setup = Store.open(dbPath);
    setup.sessions.create({ id: 'durable', cwd: '/w' });
    setup.close();

    const reported: number[] = [];
    let storedBefore = 0;
    for (const killAfter of [150, 150]) {
      const printed = await runAndKill(dbPath, 'durable', killAfter);
      expect(printed.length).toBeGreaterThanOrEqual(killAfter);
      // a rerun resumes after what is stored (including an unreported in-flight draft)
      expect(printed[0]).toBe(storedBefore + 1);
      expect(printed).toEqual(printed.map((_, index) => storedBefore + index + 1));
      reported.push(...printed);
      // The writer never closed cleanly, so its WAL is still there to be recovered.
      expect(existsSync(`${dbPath}-wal`)).toBe(true);

      const store = Store.open(dbPath);
      try {
        expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(store.db.pragma('foreign_key_check')).toEqual([]);
        const messages = store.messages.list('durable');
        const bySeq = new Map(messages.map((m) => [m.seq, m]));
        for (const seq of reported) {
          expect(bySeq.get(seq)).toMatchObject({
            status: 'complete',
            parts: [{ type: 'text', text: `message ${seq}` }],
          });
        }
        // seqs are gap-free, and at most the one in-flight iteration is beyond what was reported
        expect(messages.map((m) => m.seq)).toEqual(messages.map((_, index) => index + 1));
        const lastReported = reported[reported.length - 1]!;
        expect(messages.length - lastReported).toBeLessThanOrEqual(1);
        const finished = new Set(
          store.toolCalls
            .list('durable')
            .filter((c) => c.state === 'completed')
            .map((c) => c.callId),
        );
        for (const seq of reported) expect(finished.has(`call-${seq}`)).toBe(true);
        storedBefore = messages.length;
      } finally {
        store.close();
      }
    }
  });
});

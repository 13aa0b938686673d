/** What every interactive face (the terminal UI, the plain prompt) says on exit about the session it leaves. */
import type { Runtime } from './runtime.js';

/** `Session 1a2b3c4d is kept: tea -r 1a2b3c4d continues it.`; undefined for a session with no message. */
export function keptLine(rt: Runtime, sessionId: string): string | undefined {
  if (rt.sessions.messageCount(sessionId) === 0) return undefined;
  return sessionKeptText(sessionId);
}

/** The line itself (a turn still running keeps its session before its first message is stored). */
export function sessionKeptText(sessionId: string): string {
  const short = sessionId.slice(0, 8);
  return `Session ${short} is kept: tea -r ${short} continues it.\n`;
}

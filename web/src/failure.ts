/**
 * A failed turn in the transcript: its error, shown once, and a Retry button that
 * sends the turn's input (text and images) again. Only the newest failure offers
 * Retry: once pressed, the button goes (it comes back if the send is refused).
 */
import { h } from './dom.js';
import type { ImageInput, StoredMessage } from './types.js';

/** What a turn was started with, to send it again. */
export interface TurnInput {
  text: string;
  images: ImageInput[];
}

export type RetryAction = (input: TurnInput) => Promise<boolean>;

/** The line of a turn that stopped before completing (cancelled, a limit, a budget), with why. */
export function turnStatusLine(reason: string, message?: string): HTMLElement {
  const label =
    reason === 'cancelled'
      ? 'Turn cancelled'
      : reason === 'client_tools'
        ? "Waiting for the API client to send its tools' results"
        : `Turn stopped (${reason.replace(/_/g, ' ')})`;
  return h(
    'div',
    {
      class: `system-line turn-status reason-${reason}`,
      'data-testid': 'turn-status',
      'data-reason': reason,
    },
    message ? `${label}: ${message}` : label,
  );
}

/** The error line of a failed turn; `retryable` adds the Retry button to it later. */
export function failureLine(message: string): HTMLElement {
  return h(
    'div',
    {
      class: 'system-line line-error turn-error',
      role: 'alert',
      'data-testid': 'turn-error',
      'data-message': message,
    },
    h('span', { class: 'turn-error-text' }, message),
  );
}

/** Adds Retry to a failure line (replacing any earlier one on the page). */
export function offerRetry(line: HTMLElement, input: TurnInput, retry: RetryAction): void {
  for (const old of line.ownerDocument.querySelectorAll('.retry-turn')) old.remove();
  const button = h(
    'button',
    { class: 'small retry-turn', 'data-testid': 'retry', title: 'Send this turn’s message again' },
    'Retry',
  );
  button.addEventListener('click', async () => {
    button.disabled = true;
    if (await retry(input)) button.remove();
    else button.disabled = false;
  });
  line.appendChild(button);
}

/** What a stored user message asked: its text and images, to send again. */
export function inputOf(message: StoredMessage): TurnInput {
  const text = message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  const images = message.parts.flatMap((p) =>
    p.type === 'image' && p.data ? [{ mediaType: p.mediaType, data: p.data }] : [],
  );
  return { text, images };
}

/** The start of what undo/redo store for the model (src/agent/journal/journal.ts). */
const JOURNAL_NOTE = '[Journal note]';

/** The text of a stored user message undo/redo wrote for the model, without its marker; null for any other. */
export function journalNote(message: StoredMessage): string | null {
  const { text } = inputOf(message);
  return text.startsWith(JOURNAL_NOTE) ? text.slice(JOURNAL_NOTE.length).trim() : null;
}

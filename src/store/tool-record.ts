/**
 * One tool call, from the moment the model asks for it to its result: the record
 * the loop emits on each transition (`tool_update`), the session recorder stores,
 * and every face (CLI, web UI, ACP, the wires) renders. It lives in store/ because
 * the store keeps it; agent/ re-exports it.
 *
 * States: `pending` (received) → `awaiting_approval` (the policy asks the user) →
 * `running` → `completed` | `error` | `denied` | `cancelled` | `skipped`;
 * `interrupted` when the process running it died (set by recovery). Validation and
 * authorisation happen before `running`: a call that is refused never shows as started.
 */
import type { ImagePart, TextPart } from '../llm/types.js';

export type ToolCallState =
  | 'pending'
  | 'awaiting_approval'
  | 'running'
  | 'completed'
  | 'error'
  | 'denied'
  | 'cancelled'
  | 'skipped'
  | 'interrupted';

/** The states a call ends in. */
export type ToolCallOutcome = Exclude<ToolCallState, 'pending' | 'awaiting_approval' | 'running'>;

export const TOOL_CALL_STATES: readonly ToolCallState[] = [
  'pending',
  'awaiting_approval',
  'running',
  'completed',
  'error',
  'denied',
  'cancelled',
  'skipped',
  'interrupted',
];

export const TOOL_CALL_OUTCOMES: readonly ToolCallOutcome[] = [
  'completed',
  'error',
  'denied',
  'cancelled',
  'skipped',
  'interrupted',
];

/** Whether a call in `state` has ended (no transition follows). */
export function isFinished(state: ToolCallState): state is ToolCallOutcome {
  return (TOOL_CALL_OUTCOMES as readonly string[]).includes(state);
}

/** What a call does, for a face's icon (the ACP tool kinds). */
export type ToolCallKind =
  | 'read'
  | 'edit'
  | 'delete'
  | 'move'
  | 'search'
  | 'execute'
  | 'think'
  | 'fetch'
  | 'other';

/** A result's content as the model gets it: text, and images. */
export type ToolContent = TextPart | ImagePart;

export interface ToolCallRecord {
  callId: string;
  turnId: string;
  name: string;
  args: Record<string, unknown>;
  state: ToolCallState;
  /** One line for faces: the tool and what it acts on (`bash: npm test`). */
  title: string;
  kind: ToolCallKind;
  /** The result (empty until the call ends). */
  content: ToolContent[];
  /** Epoch ms: when the call was received. */
  createdAt: number;
  /** Epoch ms: when it started running (absent: it never ran). */
  startedAt?: number;
  /** Epoch ms: when it ended. */
  finishedAt?: number;
  /** How long it ran (absent: it never ran). */
  durationMs?: number;
}

/** The text of a call's result (its text parts joined). */
export function contentText(content: readonly ToolContent[]): string {
  let s = '';
  for (const p of content) if (p.type === 'text') s += p.text;
  return s;
}

/** The images of a call's result. */
export function contentImages(content: readonly ToolContent[]): ImagePart[] {
  return content.filter((p): p is ImagePart => p.type === 'image');
}

/** A result's content: its text, then its images. */
export function toolContent(output: string, images: readonly ImagePart[] = []): ToolContent[] {
  return [{ type: 'text', text: output }, ...images];
}

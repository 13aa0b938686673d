/**
 * `ask_user` over ACP. A client that offers form elicitation (`clientCapabilities.
 * elicitation.form`) gets the question as `elicitation/create`: one text field, or
 * with suggested answers a choice of them plus a field for an answer of the user's own.
 * Accept gives the model the answer; decline and cancel give it a plain statement that
 * the user did not answer. A client without it: the model is told nobody can answer now.
 */
import type {
  AgentContext,
  ClientCapabilities,
  CreateElicitationResponse,
  ElicitationSchema,
} from '@agentclientprotocol/sdk';
import type { AgentEvent } from '../agent/events.js';

type Question = Extract<AgentEvent, { type: 'question' }>;

/** What the model is told when the client cannot ask (no elicitation): ACP v1's prompt has no way to. */
export const NO_ANSWER =
  '(The editor cannot answer questions during a turn. Make the most reasonable assumption, say which one you made, and continue; the user can correct you in the next message.)';

// ask_user reports `The user answered: <text>`; these read on from there.
export const DECLINED =
  'nothing — the user declined to answer. Do not ask again; make the most reasonable assumption, say which one you made, and continue.';

export const DISMISSED =
  'nothing — the user dismissed the question without answering. Make the most reasonable assumption, say which one you made, and continue; the user can correct you in the next message.';

export const EMPTY_ANSWER = 'nothing — the user submitted an empty answer.';

/** Whether the client renders elicitation forms. */
export function canElicit(caps: ClientCapabilities | undefined): boolean {
  return caps?.elicitation?.form != null;
}

/** The form for a question: `answer` (free text), or `choice` among the options plus `answer` for another. */
export function questionForm(q: Pick<Question, 'question' | 'options'>): ElicitationSchema {
  const options = q.options ?? [];
  if (options.length === 0) {
    return {
      type: 'object',
      properties: { answer: { type: 'string', title: 'Answer', description: q.question } },
      required: ['answer'],
    };
  }
  return {
    type: 'object',
    properties: {
      choice: {
        type: 'string',
        title: 'Choose an answer',
        oneOf: options.map((o) => ({ const: o, title: o })),
      },
      answer: {
        type: 'string',
        title: 'Or answer in your own words',
        description: 'Used instead of the choice when filled in',
      },
    },
  };
}

/** The text the model gets for the client's response. */
export function answerText(res: CreateElicitationResponse): string {
  switch (res.action) {
    case 'accept': {
      const content = (res as { content?: Record<string, unknown> | null }).content ?? {};
      const own = typeof content.answer === 'string' ? content.answer.trim() : '';
      const choice = typeof content.choice === 'string' ? content.choice.trim() : '';
      return own || choice || EMPTY_ANSWER;
    }
    case 'decline':
      return DECLINED;
    case 'cancel':
      return DISMISSED;
    default:
      return `nothing — the editor ended the question with an unknown action "${res.action}". Make the most reasonable assumption, say which one you made, and continue.`;
  }
}

/**
 * Asks the client and resolves with the text to answer the question with; undefined when
 * the turn was cancelled meanwhile (the question is then cancelled with it).
 */
export async function elicitAnswer(
  client: AgentContext,
  sessionId: string,
  q: Question,
  toolCallId: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const who = q.agent ? `${q.agent.label} asks: ` : '';
  try {
    const res = await client.request(
      'elicitation/create',
      {
        mode: 'form',
        sessionId,
        toolCallId,
        message: `${who}${q.question}`,
        requestedSchema: questionForm(q),
      },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    );
    return answerText(res);
  } catch (error) {
    if (signal.aborted) return undefined;
    const message = error instanceof Error ? error.message : String(error);
    return `nothing — the editor could not ask the user (${message}). Make the most reasonable assumption, say which one you made, and continue.`;
  }
}

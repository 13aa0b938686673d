/**
 * Client tools for the faces (the OpenAI-compatible chat completions and the
 * Responses API): the agent core's capability (agent/client-tools.ts) and the check
 * of a client's response format, built on the structured-output checker roles use.
 */
import type { AnswerCheck } from '../agent/client-tools.js';
import type { ResponseFormat } from '../llm/types.js';
import { outputChecker, repairPrompt } from '../multi/roles/index.js';

export type {
  AnswerCheck,
  AwaitingClientCalls,
  ClientToolResult,
  ClientTurn,
} from '../agent/client-tools.js';
export { clientToolCollision } from '../agent/client-tools.js';
export type { ResponseFormat, ToolCallPart, ToolChoice, ToolSpec } from '../llm/types.js';

/** The response format's schema is not one Tea can check answers against. */
export class InvalidSchemaError extends Error {}

const OBJECT = { type: 'object' };

/**
 * The check of final answers against `format` (a JSON object, or a value matching a
 * JSON schema), with its repair prompt. Throws `InvalidSchemaError` for a schema that
 * cannot be used.
 */
export async function answerCheck(format: ResponseFormat): Promise<AnswerCheck> {
  const schema = format.type === 'json_schema' ? format.schema : OBJECT;
  let check: AnswerCheck['check'];
  try {
    check = await outputChecker(schema);
  } catch (e) {
    throw new InvalidSchemaError((e as Error).message);
  }
  return {
    check,
    repairPrompt: (error) =>
      format.type === 'json_schema'
        ? repairPrompt(error, schema)
        : `Your final answer must be a JSON object, and it is not:\n${error}\n\nReply again with the corrected answer only: one JSON object, no other text.`,
  };
}

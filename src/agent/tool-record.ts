/** The one tool-call record (kept by the store, shared by the loop and every face). */
export {
  contentImages,
  contentText,
  isFinished,
  TOOL_CALL_STATES,
  type ToolCallKind,
  type ToolCallOutcome,
  type ToolCallRecord,
  type ToolCallState,
  type ToolContent,
  toolContent,
} from '../store/tool-record.js';

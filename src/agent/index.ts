export { Agent, type AgentOptions, type SessionTools } from './agent.js';
export type { CompactResult } from './context.js';
export type {
  AgentEvent,
  AgentEventType,
  StopReason,
  ToolCallKind,
  ToolCallOutcome,
  ToolCallRecord,
  ToolCallState,
  ToolContent,
} from './events.js';
export { toModelMessages } from './history.js';
export {
  DEFAULT_LIMITS as JOURNAL_LIMITS,
  type FileChange,
  JOURNAL_NOTE,
  Journal,
  type JournalLimits,
  type JournalOptions,
  type RoundInfo,
  type UndoRefusal,
  type UndoResult,
} from './journal/index.js';
export type { AgentServices } from './services.js';
export { BACKGROUND_GRACE_MS, type PromptOptions, Session, type SessionOptions } from './session.js';
export {
  type AgentSettings,
  agentSettings,
  DEFAULT_SETTINGS,
  type SettingsInput,
  settingsFrom,
} from './settings.js';

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
export type { AgentServices } from './services.js';
export { BACKGROUND_GRACE_MS, type PromptOptions, Session, type SessionOptions } from './session.js';
export {
  type AgentSettings,
  agentSettings,
  DEFAULT_SETTINGS,
  type SettingsInput,
  settingsFrom,
} from './settings.js';

export { agentSource, type RuntimeDeps, runtimeDeps } from './agents.js';
export { createApp, createTeaApp, type TeaApp } from './app.js';
export { isLoopback } from './auth.js';
export { ApiError, apiError } from './errors.js';
export { EventHub, type HubEvent } from './events.js';
export { type RunningServer, startServer } from './server.js';
export type { AgentSource, ProfileInfo, RateLimitOptions, ServerDeps } from './types.js';

/** Configuration: files, env vars and detection merged into one validated TeaConfig. */
export { ConfigError, type ConfigErrorDetails } from './errors.js';
export { CONFIG_FILE, findProjectConfig, teaHome } from './files.js';
export { type LoadConfigOptions, loadConfig } from './load.js';
export { type MaskOptions, maskedConfig, maskedValues, maskSecret } from './mask.js';
export { describeMissingModel } from './missing.js';
export { profileNames, resolveProfile } from './profile.js';
export type { SandboxConfig, SandboxReport } from './sandbox.js';
export type {
  ConfigRule,
  PermissionModeName,
  PermissionsConfig,
  ToolsConfig,
  WebSearchSettings,
} from './sections.js';
export { type HostEntry, parseHostEntry, type ServerSettings } from './server.js';
export { type TrustDecision, type TrustRecord, type TrustState, trustStateOf } from './trust-store.js';
export type {
  EmbeddingConfig,
  KeySource,
  MainModelOrigin,
  ModelOverride,
  ProfileConfig,
  ProjectTrust,
  RestrictedSetting,
  TeaConfig,
} from './types.js';

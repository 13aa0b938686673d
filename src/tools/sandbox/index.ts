/** The shell sandbox (bubblewrap on Linux) for the programs the agent starts. */
export { type BwrapSpec, bwrapArgs, mountPlan } from './bwrap.js';
export { sandboxNotes } from './explain.js';
export { type HiddenPath, HOME_SECRETS, hiddenPaths, SYSTEM_SECRETS } from './hidden.js';
export {
  type Launch,
  type LaunchRequest,
  NETWORK_RULE_TOOL,
  type NetworkPolicy,
  SANDBOX_MODES,
  Sandbox,
  type SandboxMode,
  type SandboxProbe,
  type SandboxSettings,
} from './sandbox.js';
export { type SandboxStatus, sandboxStatus } from './status.js';

/**
 * The shell sandbox and env scrub of one run, from the config and `--sandbox`:
 * every face that builds tools (tea, serve, acp, mcp serve) goes through here.
 */
import { configuredSecrets } from '../config/secrets.js';
import type { TeaConfig } from '../config/types.js';
import { Sandbox, type SandboxMode } from '../tools/sandbox/sandbox.js';

export interface ShellSetup {
  sandbox: Sandbox;
  /** Variables Tea was configured with, and its secret values: scrubbed from every program's env. */
  envDenyNames: string[];
  envDenyValues: string[];
}

/** The sandbox (config `sandbox`, overridden by `--sandbox`) and the configured secrets to scrub. */
export function shellSetup(config: TeaConfig, flag?: SandboxMode): ShellSetup {
  const secrets = configuredSecrets(config);
  return {
    sandbox: new Sandbox({
      mode: flag ?? config.sandbox.mode,
      network: config.sandbox.network,
      teaHome: config.home,
      warn: (message) => process.stderr.write(`tea: warning: ${message}\n`),
    }),
    envDenyNames: secrets.names,
    envDenyValues: secrets.values,
  };
}

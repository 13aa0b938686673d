import {
  loadConfig,
  maskedConfig,
  maskedValues,
  resolveProfile,
  type SandboxReport,
  type TeaConfig,
} from '../config/index.js';
import { workspaceDir } from '../runtime/directories.js';
import {
  complete,
  createModelChain,
  createRegistry,
  type ProfileConfig,
  Sandbox,
  sandboxStatus,
} from '../runtime/probe.js';
import { EXIT } from './exit.js';

/** Whether the configured sandbox works here (bubblewrap probed as the shell tools would). */
async function sandboxReport(config: TeaConfig): Promise<SandboxReport> {
  const sandbox = new Sandbox({
    mode: config.sandbox.mode,
    network: config.sandbox.network,
    teaHome: config.home,
  });
  const { summary, sandboxed } = await sandboxStatus(sandbox);
  return { summary, sandboxed };
}

/** `tea config [--json]`: the effective config, secrets masked, with the sandbox's state here. */
export async function printConfig(opts: { cwd?: string; json?: boolean }): Promise<number> {
  const config = await loadConfig({ cwd: workspaceDir(opts.cwd) });
  const sandbox = await sandboxReport(config);
  process.stdout.write(
    opts.json
      ? `${JSON.stringify(maskedValues(config, { sandbox }), null, 2)}\n`
      : maskedConfig(config, { sandbox }),
  );
  return EXIT.OK;
}

/** Validates the config (loading throws a ConfigError naming file and key) and pings each model. */
export async function checkConfig(opts: { cwd?: string }): Promise<number> {
  const config = await loadConfig({ cwd: workspaceDir(opts.cwd) });
  const files = config.files.length > 0 ? config.files.join(', ') : 'none (environment only)';
  process.stdout.write(`config files: ${files}\nconfig: valid\n`);
  const sandbox = await sandboxReport(config);
  process.stdout.write(`sandbox: ${sandbox.summary}\n`);
  // `sandbox: on` without a working bubblewrap refuses every shell command.
  const sandboxFailed = config.sandbox.mode === 'on' && !sandbox.sandboxed;
  const targets: ProfileConfig[] = [];
  if (config.mainModel) targets.push(config.mainModel);
  const main = config.mainModel;
  const cheap = config.cheapModel;
  const sameAsMain = cheap && main && cheap.baseUrl === main.baseUrl && cheap.model === main.model;
  if (cheap && !sameAsMain) targets.push(cheap);
  for (const name of config.fallback) targets.push(resolveProfile(config, name));
  if (targets.length === 0) {
    process.stdout.write('no model configured\n');
    return EXIT.NO_MODEL;
  }
  const registry = createRegistry(config.models);
  let failed = 0;
  for (const profile of targets) {
    const provider = createModelChain([profile], {
      timeoutMs: Math.min(config.llm.timeoutMs, 30_000),
      maxRetries: 0,
      baseDelayMs: config.llm.retryBaseMs,
      registry,
    });
    const started = performance.now();
    try {
      const r = await complete(provider, {
        messages: [{ role: 'user', parts: [{ type: 'text', text: 'Reply with the single word: ok' }] }],
        maxOutputTokens: 16,
      });
      const ms = Math.round(performance.now() - started);
      process.stdout.write(
        `${profile.name}: ok (${profile.model} at ${profile.baseUrl}, ${ms} ms): ${JSON.stringify(r.text.trim().slice(0, 40))}\n`,
      );
    } catch (e) {
      failed++;
      process.stdout.write(
        `${profile.name}: FAILED (${profile.model} at ${profile.baseUrl}): ${(e as Error).message}\n`,
      );
    }
  }
  return failed === 0 && !sandboxFailed ? EXIT.OK : EXIT.ERROR;
}

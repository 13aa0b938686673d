import { loadConfig, maskedConfig, resolveProfile } from '../config/index.js';
import { complete } from '../llm/collect.js';
import { createModelChain, type ProfileConfig } from '../llm/factory.js';
import { createRegistry } from '../llm/registry.js';
import { EXIT } from './exit.js';
import { workspaceDir } from './runtime.js';

export async function printConfig(opts: { cwd?: string }): Promise<number> {
  const config = await loadConfig({ cwd: workspaceDir(opts.cwd) });
  process.stdout.write(maskedConfig(config));
  return EXIT.OK;
}

/** Validates the config (loading throws a ConfigError naming file and key) and pings each model. */
export async function checkConfig(opts: { cwd?: string }): Promise<number> {
  const config = await loadConfig({ cwd: workspaceDir(opts.cwd) });
  const files = config.files.length > 0 ? config.files.join(', ') : 'none (environment only)';
  process.stdout.write(`config files: ${files}\nconfig: valid\n`);
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
  return failed === 0 ? EXIT.OK : EXIT.ERROR;
}

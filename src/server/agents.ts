/**
 * The agent pool behind the server: one Agent per (profile, approvals) pair, built
 * on first use over the shared store, tools and memory. Requests may also name a
 * YAML profile file (`config_path`) inside the Tea home.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Agent } from '../agent/index.js';
import { agentSettings, chainOptions } from '../agent/settings.js';
import { fillMainFromEnv, finaliseProfile } from '../config/finalize.js';
import { toLayer } from '../config/layers.js';
import { profileNames, resolveProfile } from '../config/profile.js';
import type { TeaConfig } from '../config/types.js';
import type { TokenCalibrator } from '../context/tokens.js';
import { BreakerRegistry } from '../llm/breaker.js';
import { createModelChain, type ProfileConfig } from '../llm/factory.js';
import type { Provider } from '../llm/types.js';
import type { LongTermMemory } from '../memory/api.js';
import type { Store } from '../store/index.js';
import type { PermissionMode, PermissionRule } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import { apiError } from './errors.js';
import type { AgentSource, ProfileInfo } from './types.js';

export interface AgentPoolOptions {
  config: TeaConfig;
  store: Store;
  tools: ToolRegistry;
  memory?: LongTermMemory;
  cwd: string;
  permissionMode: PermissionMode;
  permissionRules?: readonly PermissionRule[];
  allowedRoots?: string[];
  calibrator?: TokenCalibrator;
  /** Model calls per turn (default: config). */
  maxIterations?: number;
  /** Name sessions on the cheap model (default: config). */
  titles?: boolean;
  env?: NodeJS.ProcessEnv;
}

const FILE_PREFIX = 'file:';

export class AgentPool implements AgentSource {
  active: string;
  private readonly agents = new Map<string, Agent>();
  private readonly providers = new Map<string, Provider>();
  private readonly fileProfiles = new Map<string, ProfileConfig>();
  private readonly breakers: BreakerRegistry;
  private cheap: Provider | undefined;

  constructor(private readonly opts: AgentPoolOptions) {
    const names = profileNames(opts.config);
    this.active = names.includes('main_model') ? 'main_model' : (names[0] ?? 'main_model');
    this.breakers = new BreakerRegistry(opts.config.llm.breaker);
  }

  profiles(): ProfileInfo[] {
    const config = this.opts.config;
    const out = profileNames(config).map((name) => ({ name, model: resolveProfile(config, name).model }));
    for (const [name, p] of this.fileProfiles) out.push({ name, model: p.model });
    return out;
  }

  async resolve(name: string | undefined, param = 'model'): Promise<string> {
    if (name === undefined || name === '' || name === 'tea') return this.active;
    const known = this.profiles();
    if (known.some((p) => p.name === name)) return name;
    const byModel = known.find((p) => p.model === name);
    if (byModel) return byModel.name;
    if (name.includes('/') || /\.ya?ml$/i.test(name)) return this.loadFile(name, param);
    throw apiError(
      404,
      `The model \`${name}\` does not exist: known profiles are tea, ${known.map((p) => p.name).join(', ')}`,
      {
        param,
        code: 'model_not_found',
      },
    );
  }

  agent(profile: string, approvals: 'ask' | 'deny'): Agent {
    const key = `${approvals}\u0000${profile}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const c = this.opts.config;
      const settings = agentSettings(c);
      agent = new Agent({
        ...settings,
        provider: this.provider(profile),
        tools: this.opts.tools,
        store: this.opts.store,
        cwd: this.opts.cwd,
        maxIterations: this.opts.maxIterations ?? settings.maxIterations,
        permissionMode: this.opts.permissionMode,
        permissionRules: this.opts.permissionRules ?? c.permissions.rules,
        allowedRoots: this.opts.allowedRoots ?? c.permissions.roots,
        approvals,
        cheapProvider: this.cheapProvider(profile),
        titles: (this.opts.titles ?? true) && c.agent.autoTitle,
        ...(this.opts.calibrator ? { calibrator: this.opts.calibrator } : {}),
        ...(this.opts.memory ? { memory: this.opts.memory } : {}),
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  private profileConfig(name: string): ProfileConfig {
    return this.fileProfiles.get(name) ?? resolveProfile(this.opts.config, name);
  }

  private provider(profile: string): Provider {
    let provider = this.providers.get(profile);
    if (!provider) {
      const c = this.opts.config;
      const main = this.profileConfig(profile);
      const fallbacks = profile === 'main_model' ? c.fallback.filter((n) => n !== main.name) : [];
      provider = createModelChain(
        [main, ...fallbacks.map((n) => resolveProfile(c, n))],
        chainOptions(c, { breakers: this.breakers }),
      );
      this.providers.set(profile, provider);
    }
    return provider;
  }

  private cheapProvider(profile: string): Provider {
    const c = this.opts.config;
    if (!c.cheapModel) return this.provider(profile);
    this.cheap ??= createModelChain(
      [c.cheapModel],
      chainOptions(c, { cheap: true, breakers: this.breakers }),
    );
    return this.cheap;
  }

  /** A YAML config file inside the Tea home whose `main_model` becomes profile `file:<name>`. */
  private async loadFile(file: string, param: string): Promise<string> {
    const home = path.resolve(this.opts.config.home);
    const full = path.resolve(home, file);
    if (!full.startsWith(home + path.sep)) {
      throw apiError(400, `config_path must name a file inside ${home}`, {
        param,
        code: 'invalid_config_path',
      });
    }
    if (!existsSync(full)) {
      throw apiError(404, `config file not found: ${full}`, { param, code: 'model_not_found' });
    }
    const name = `${FILE_PREFIX}${path.relative(home, full)}`;
    if (this.fileProfiles.has(name)) return name;
    const { readConfigFile } = await import('../config/read.js');
    let profile: ProfileConfig;
    try {
      const raw = readConfigFile(full);
      const layer = raw === undefined ? undefined : toLayer(raw, full);
      if (!layer?.mainModel) throw new Error(`${full} has no main_model section`);
      const env = this.opts.env ?? process.env;
      profile = finaliseProfile(name, fillMainFromEnv(layer.mainModel, env), env).value;
    } catch (e) {
      throw apiError(400, `config_path: ${(e as Error).message}`, { param, code: 'invalid_config_path' });
    }
    this.fileProfiles.set(name, profile);
    return name;
  }
}

/**
 * The model side of a runtime: profiles by name, one provider chain per profile
 * built on first use, one cheap chain, and one set of circuit breakers shared by
 * all of them (an endpoint that is down is down for every profile that uses it).
 * A caller may also name a YAML file inside the Tea home whose `main_model` becomes
 * profile `file:<name>`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chainOptions } from '../agent/settings.js';
import { fillMainFromEnv, finaliseProfile } from '../config/finalize.js';
import { toLayer } from '../config/layers.js';
import { describeMissingModel } from '../config/missing.js';
import { profileNames, resolveProfile } from '../config/profile.js';
import type { ProfileConfig, TeaConfig } from '../config/types.js';
import { BreakerRegistry } from '../llm/breaker.js';
import { createModelChain } from '../llm/factory.js';
import type { Provider } from '../llm/types.js';
import { RuntimeError } from './errors.js';

export interface ProfileInfo {
  name: string;
  /** The underlying model id. */
  model: string;
}

const FILE_PREFIX = 'file:';

/** Why a name could not be resolved: `config_path` outside the home or unreadable (`usage`), or unknown (`not_found`). */
export class ProfileError extends RuntimeError {}

export class ModelPool {
  /** The profile used when a caller names none. */
  active: string;
  private readonly providers = new Map<string, Provider>();
  private readonly overrides = new Map<string, ProfileConfig>();
  private readonly breakers: BreakerRegistry;
  private cheap: Provider | undefined;

  constructor(
    private readonly config: TeaConfig,
    opts: { profile?: string; model?: string; env?: NodeJS.ProcessEnv } = {},
  ) {
    this.env = opts.env ?? process.env;
    this.breakers = new BreakerRegistry(config.llm.breaker);
    const names = profileNames(config);
    this.active = names.includes('main_model') ? 'main_model' : (names[0] ?? 'main_model');
    if (opts.profile) {
      // An unknown profile is the caller's mistake, said now (a missing model only when used).
      if (opts.profile !== 'main_model' && !names.includes(opts.profile)) this.profileConfig(opts.profile);
      this.active = opts.profile;
    }
    this.model = opts.model;
  }

  /** `model` option: another model id for the active profile (applied when it is first used). */
  private readonly model: string | undefined;

  /** Throws `no_model` (or the profile's error) now when the active profile cannot be used. */
  requireModel(): void {
    this.profileConfig(this.active);
  }

  private readonly env: NodeJS.ProcessEnv;

  profiles(): ProfileInfo[] {
    const names = profileNames(this.config);
    const out = names.map((name) => ({ name, model: this.profileConfig(name).model }));
    for (const [name, p] of this.overrides) if (!names.includes(name)) out.push({ name, model: p.model });
    return out;
  }

  /** The profiles' names (nothing is built or checked). */
  names(): string[] {
    const names = profileNames(this.config);
    return [...names, ...[...this.overrides.keys()].filter((n) => !names.includes(n))];
  }

  /** A profile of this name exists: configured, loaded from a file, or a `base@model` variant of one. */
  has(name: string): boolean {
    if (this.profiles().some((p) => p.name === name)) return true;
    if (!name.includes('@')) return false;
    try {
      this.profileConfig(name);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The canonical profile name for what a caller named: a profile name, `tea`, a
   * profile's model id, or a YAML file in the Tea home; undefined names the active one.
   */
  async resolve(name: string | undefined): Promise<string> {
    if (name === undefined || name === '' || name === 'tea') return this.active;
    const known = this.profiles();
    if (known.some((p) => p.name === name)) return name;
    const byModel = known.find((p) => p.model === name);
    if (byModel) return byModel.name;
    if (name.includes('/') || /\.ya?ml$/i.test(name)) return this.loadFile(name);
    throw new ProfileError(
      'not_found',
      `The model \`${name}\` does not exist: known profiles are tea, ${known.map((p) => p.name).join(', ')}`,
    );
  }

  /**
   * A profile that is `base` (default: the active one) with another model id: same
   * endpoint, key and settings. Named `base@model`, so a session stored on it reopens on
   * it in a later process too. `/model <id>` in the terminal UI uses this.
   */
  variant(model: string, base: string = this.active): string {
    const id = model.trim();
    if (!/^[^\s\p{C}@]{1,200}$/u.test(id))
      throw new ProfileError(
        'usage',
        `model id ${JSON.stringify(model)} is not usable: give the provider's model id, without spaces or "@"`,
      );
    const root = base.includes('@') && !profileNames(this.config).includes(base) ? base.split('@')[0]! : base;
    const name = `${root}@${id}`;
    if (!this.overrides.has(name)) this.overrides.set(name, { ...this.profileConfig(root), name, model: id });
    return name;
  }

  /** The main chain of `profile`: the active profile also falls back along `fallback`. */
  provider(profile: string = this.active): Provider {
    let provider = this.providers.get(profile);
    if (!provider) {
      const main = this.profileConfig(profile);
      const fallbacks = profile === this.active ? this.config.fallback.filter((n) => n !== main.name) : [];
      provider = createModelChain(
        [main, ...fallbacks.map((n) => resolveProfile(this.config, n))],
        chainOptions(this.config, { breakers: this.breakers }),
      );
      this.providers.set(profile, provider);
    }
    return provider;
  }

  /** The cheap model for background jobs; without one, `profile`'s own chain. */
  cheapProvider(profile: string = this.active): Provider {
    const c = this.config;
    if (!c.cheapModel) return this.provider(profile);
    this.cheap ??= createModelChain(
      [c.cheapModel],
      chainOptions(c, { cheap: true, breakers: this.breakers }),
    );
    return this.cheap;
  }

  /** A configured profile by name; `no_model` when there is no model at all, `usage` for an unknown name. */
  private profileConfig(name: string): ProfileConfig {
    const override = this.overrides.get(name);
    if (override) return override;
    // `base@model` (a variant stored with a session by an earlier process).
    const at = name.indexOf('@');
    if (at > 0 && !profileNames(this.config).includes(name)) {
      const [base, model] = [name.slice(0, at), name.slice(at + 1)];
      if (base !== name && profileNames(this.config).includes(base) && this.variant(model, base) === name)
        return this.overrides.get(name)!;
    }
    if (
      (name === 'main_model' || name === this.active) &&
      !this.config.mainModel &&
      !this.config.profiles[name]
    )
      throw new RuntimeError('no_model', describeMissingModel(this.config));
    let profile: ProfileConfig;
    try {
      profile = resolveProfile(this.config, name);
    } catch (e) {
      throw new ProfileError('usage', (e as Error).message);
    }
    if (name === this.active && this.model) {
      profile = { ...profile, model: this.model };
      this.overrides.set(name, profile);
    }
    return profile;
  }

  /** A YAML config file inside the Tea home whose `main_model` becomes profile `file:<name>`. */
  private async loadFile(file: string): Promise<string> {
    const home = path.resolve(this.config.home);
    const full = path.resolve(home, file);
    if (!full.startsWith(home + path.sep))
      throw new ProfileError('usage', `config_path must name a file inside ${home}`);
    if (!existsSync(full)) throw new ProfileError('not_found', `config file not found: ${full}`);
    const name = `${FILE_PREFIX}${path.relative(home, full)}`;
    if (this.overrides.has(name)) return name;
    const { readConfigFile } = await import('../config/read.js');
    let profile: ProfileConfig;
    try {
      const raw = readConfigFile(full);
      const layer = raw === undefined ? undefined : toLayer(raw, full);
      if (!layer?.mainModel) throw new Error(`${full} has no main_model section`);
      profile = finaliseProfile(name, fillMainFromEnv(layer.mainModel, this.env), this.env).value;
    } catch (e) {
      throw new ProfileError('usage', `config_path: ${(e as Error).message}`);
    }
    this.overrides.set(name, profile);
    return name;
  }
}

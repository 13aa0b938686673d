import { ConfigError } from './errors.js';
import { describeMissingModel } from './missing.js';
import { suggestKey } from './suggest.js';
import type { ProfileConfig, TeaConfig } from './types.js';

/** The names `resolveProfile` accepts for this config. */
export function profileNames(config: TeaConfig): string[] {
  const names: string[] = [];
  if (config.mainModel) names.push('main_model');
  if (config.cheapModel) names.push('cheap_model');
  return [...names, ...Object.keys(config.profiles)];
}

/**
 * A profile by name: `main_model`, `cheap_model` or a name under `profiles`.
 * Throws ConfigError listing the known names (and how to configure a model when
 * there is none).
 */
export function resolveProfile(config: TeaConfig, name: string): ProfileConfig {
  if (name === 'main_model' && config.mainModel) return config.mainModel;
  if (name === 'cheap_model' && config.cheapModel) return config.cheapModel;
  const profile = Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined;
  if (profile) return profile;

  const known = profileNames(config);
  if ((name === 'main_model' || name === 'cheap_model') && !config.mainModel) {
    const fix = describeMissingModel(config);
    throw new ConfigError(`No model is configured, so there is no "${name}" profile.\n${fix}`, {
      key: name,
      fix,
    });
  }
  const suggestion = suggestKey(name, known);
  const listed = known.length ? known.join(', ') : '(none)';
  const fix = suggestion
    ? `did you mean "${suggestion}"? Known profiles: ${listed}.`
    : `use one of: ${listed}, or define "${name}" under \`profiles:\` in ${config.home}/config.yaml.`;
  throw new ConfigError(`Unknown profile "${name}". Fix: ${fix}`, {
    key: name,
    expected: `one of ${listed}`,
    fix,
  });
}

/**
 * A session's settings as ACP config options (`configOptions` in session/new, load,
 * resume and fork answers; `session/set_config_option`; `config_option_update`):
 *
 * - `mode` (category `mode`): the permission mode, the same as the legacy session
 *   modes (`session/set_mode` keeps working for older clients);
 * - `work_mode` (category `_work_mode`): design, develop, … (tools and prompt);
 * - `model` (category `model`): the model ids the profiles run;
 * - `profile` (category `_profile`): the config profiles (endpoint, key and model).
 *
 * A model or profile switch stores the choice with the session (a later load or
 * resume, any face, keeps it) and reopens it on that profile's agent.
 */
import {
  RequestError,
  type SessionConfigOption,
  type SessionConfigSelectOption,
  type SetSessionConfigOptionRequest,
} from '@agentclientprotocol/sdk';
import type { ProfileInfo } from '../runtime/models.js';
import type { AcpBackend } from './backend.js';
import type { LiveSession } from './live-session.js';
import { modeState, parseMode } from './modes.js';

export const CONFIG_IDS = ['mode', 'work_mode', 'model', 'profile'] as const;
export type ConfigId = (typeof CONFIG_IDS)[number];

function profilesOf(backend: AcpBackend): ProfileInfo[] {
  try {
    return backend.models.profiles();
  } catch {
    return []; // no model configured: nothing to switch between
  }
}

/** The profile the session runs on now (its stored one while it exists, else the active one). */
export function currentProfile(s: LiveSession, backend: AcpBackend): string {
  return backend.sessions.profileOf(s.session.row) ?? backend.models.active;
}

function select(
  id: ConfigId,
  name: string,
  category: string,
  currentValue: string,
  options: SessionConfigSelectOption[],
  description: string,
): SessionConfigOption {
  return { type: 'select', id, name, category, description, currentValue, options };
}

interface Choices {
  profile: string;
  model: string | undefined;
  profiles: ProfileInfo[];
  models: SessionConfigSelectOption[];
}

function choices(s: LiveSession, backend: AcpBackend): Choices {
  const profiles = profilesOf(backend);
  const profile = currentProfile(s, backend);
  const model = profiles.find((p) => p.name === profile)?.model ?? s.session.row.model ?? undefined;
  const models: SessionConfigSelectOption[] = [];
  for (const p of profiles) {
    if (models.some((m) => m.value === p.model)) continue;
    models.push({ value: p.model, name: p.model, description: `profile ${p.name}` });
  }
  if (model && !models.some((m) => m.value === model))
    models.unshift({ value: model, name: model, description: `profile ${profile}` });
  return { profile, model, profiles, models };
}

/** The session's config options with their current values. */
export function configOptions(s: LiveSession, backend: AcpBackend | undefined): SessionConfigOption[] {
  const modes = modeState(s.session.permissionMode);
  const out: SessionConfigOption[] = [
    select(
      'mode',
      'Permission mode',
      'mode',
      modes.currentModeId,
      modes.availableModes.map((m) => ({ value: m.id, name: m.name, description: m.description ?? null })),
      'Which tool calls ask for approval',
    ),
  ];
  const work = s.session.workMode;
  if (work !== undefined && s.session.workModes.length > 0) {
    const infos = backend?.sessions.modes() ?? [];
    out.push(
      select(
        'work_mode',
        'Work mode',
        '_work_mode',
        work,
        s.session.workModes.map((name) => ({
          value: name,
          name,
          description: infos.find((i) => i.name === name)?.description ?? null,
        })),
        'The tools and instructions the session works with (also sets the permission mode)',
      ),
    );
  }
  if (!backend) return out;
  const c = choices(s, backend);
  if (c.profiles.length === 0) return out;
  if (c.model)
    out.push(select('model', 'Model', 'model', c.model, c.models, 'The model the next prompt runs on'));
  out.push(
    select(
      'profile',
      'Profile',
      '_profile',
      c.profile,
      c.profiles.map((p) => ({ value: p.name, name: p.name, description: p.model })),
      'The config profile (endpoint, key and model) the session runs on',
    ),
  );
  return out;
}

/** The current values, to tell whether something changed them (a `/mode` command, `session/set_mode`). */
export function configValues(options: readonly SessionConfigOption[]): string {
  return JSON.stringify(options.map((o) => [o.id, o.currentValue]));
}

function unknownValue(id: string, value: string, known: readonly string[]): RequestError {
  return RequestError.invalidParams(
    { configId: id, value, values: known },
    `unknown ${id} ${JSON.stringify(value)}: use one of ${known.join(', ')}`,
  );
}

/** Reopens the live session on `profile` (stored with it first). */
function switchProfile(s: LiveSession, backend: AcpBackend, profile: string): void {
  if (s.busy)
    throw RequestError.invalidRequest(
      { sessionId: s.id },
      'a prompt is running in this session; wait for it or cancel it before switching the model or profile',
    );
  const row = backend.sessions.setProfile(s.id, profile);
  s.reopen((o) => backend.sessions.agentOf(row).resumeSession(row.id, o));
}

/**
 * Applies one `session/set_config_option`; returns whether the permission mode changed
 * (the legacy mode picker is told with `current_mode_update`).
 */
export function setConfigOption(
  s: LiveSession,
  params: SetSessionConfigOptionRequest,
  backend: AcpBackend | undefined,
): { modeChanged: boolean } {
  const id = params.configId;
  if (!(CONFIG_IDS as readonly string[]).includes(id) || (id !== 'mode' && id !== 'work_mode' && !backend)) {
    const known = configOptions(s, backend).map((o) => o.id);
    throw RequestError.invalidParams(
      { configId: id, configIds: known },
      `unknown config option ${JSON.stringify(id)}: this session has ${known.join(', ')}`,
    );
  }
  if ('type' in params && params.type === 'boolean')
    throw RequestError.invalidParams({ configId: id }, `${id} takes one of its values, not a boolean`);
  const value = String(params.value);
  const before = s.session.permissionMode;
  switch (id as ConfigId) {
    case 'mode':
      s.session.setPermissionMode(parseMode(value));
      break;
    case 'work_mode': {
      const names = s.session.workModes;
      if (!names.includes(value)) throw unknownValue('work_mode', value, names);
      s.session.setWorkMode(value);
      break;
    }
    case 'profile': {
      const c = choices(s, backend!);
      const names = c.profiles.map((p) => p.name);
      if (!names.includes(value)) throw unknownValue('profile', value, names);
      if (value !== c.profile) switchProfile(s, backend!, value);
      break;
    }
    case 'model': {
      const c = choices(s, backend!);
      if (value === c.model) break;
      const target = c.profiles.find((p) => p.model === value);
      if (!target)
        throw unknownValue(
          'model',
          value,
          c.models.map((m) => m.value),
        );
      switchProfile(s, backend!, target.name);
      break;
    }
  }
  return { modeChanged: s.session.permissionMode !== before };
}

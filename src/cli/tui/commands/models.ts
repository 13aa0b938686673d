/**
 * `/profile [name]` and `/model [id]`. A profile is an endpoint, key and model from the
 * config; `/model` picks a profile by its model id, or, for an id no profile runs, a
 * variant of the current profile with that id (`main_model@gpt-4o-mini`: same endpoint
 * and key). Either way the session is reopened on it with `sessions.switchProfile`, which
 * stores the choice with the session: the next turn, and a later `/resume`, use it.
 */
import type { ProfileInfo } from '../../../runtime/models.js';
import type { PickItem, TuiCommand, TuiHost } from '../host.js';
import { messageOf, notOneOf } from './format.js';

/** The profile the current session runs on (its stored one when still known, else the active one). */
export function currentProfile(host: TuiHost): string {
  const own = host.session().row.profile;
  return own && host.runtime.models.has(own) ? own : host.runtime.models.active;
}

/** The profiles, or none when no model is configured (said once by the caller). */
function profiles(host: TuiHost): ProfileInfo[] {
  try {
    return host.runtime.models.profiles();
  } catch {
    return [];
  }
}

function profileItems(host: TuiHost): PickItem[] {
  return profiles(host).map((p) => ({ value: p.name, label: p.name, description: p.model }));
}

function modelItems(host: TuiHost): PickItem[] {
  const seen = new Set<string>();
  return profiles(host).flatMap((p) => {
    if (seen.has(p.model)) return [];
    seen.add(p.model);
    return [{ value: p.model, label: p.model, description: `profile ${p.name}` }];
  });
}

/** Reopens the session on `profile`, redraws, and says what it runs now. */
async function switchTo(host: TuiHost, profile: string, how: string): Promise<void> {
  const session = host.session();
  let next: ReturnType<TuiHost['runtime']['sessions']['switchProfile']>;
  try {
    next = host.runtime.sessions.switchProfile(session.id, profile);
  } catch (e) {
    host.print(messageOf(e), { tone: 'error' });
    return;
  }
  await host.switchTo(next);
  host.refreshStatus();
  host.print(`${how}: this session now runs ${next.row.model ?? '?'} on profile ${profile}.`, {
    tone: 'success',
  });
}

function noModel(host: TuiHost): boolean {
  if (profiles(host).length > 0) return false;
  host.print('No model is configured: set main_model in ~/.tea/config.yaml (see `tea config`).', {
    tone: 'error',
  });
  return true;
}

export const profileCommand: TuiCommand = {
  name: 'profile',
  description: 'Show the profiles, or switch this session to one',
  argumentHint: '[name]',
  complete: (prefix, host) => profileItems(host).filter((i) => i.value.startsWith(prefix.trim())),
  async run(arg, host) {
    if (noModel(host)) return;
    const current = currentProfile(host);
    let name = arg.trim();
    if (name === '') {
      const picked = await host.pick({ title: 'Profiles', items: profileItems(host), selected: current });
      if (picked === undefined) return;
      name = picked;
    }
    const known = profiles(host).map((p) => p.name);
    if (!known.includes(name)) {
      host.print(notOneOf(`There is no profile "${name}"`, name, known, 'the profiles are'), {
        tone: 'error',
      });
      return;
    }
    if (name === current) {
      host.print(`This session already runs on profile ${name}.`, { tone: 'dim' });
      return;
    }
    await switchTo(host, name, `Profile ${name}`);
  },
};

export const modelCommand: TuiCommand = {
  name: 'model',
  description:
    "Show the models, or switch this session's model (an id no profile runs uses the current endpoint)",
  argumentHint: '[model id]',
  complete: (prefix, host) => modelItems(host).filter((i) => i.value.startsWith(prefix.trim())),
  async run(arg, host) {
    if (noModel(host)) return;
    const current = currentProfile(host);
    let id = arg.trim();
    if (id === '') {
      const running = host.session().row.model ?? undefined;
      const items = modelItems(host);
      if (running && !items.some((i) => i.value === running))
        items.unshift({ value: running, label: running, description: `profile ${current}` });
      const picked = await host.pick({ title: 'Models', items, ...(running ? { selected: running } : {}) });
      if (picked === undefined) return;
      id = picked;
    }
    const all = profiles(host);
    const mine = all.find((p) => p.name === current);
    if (mine?.model === id) {
      host.print(`This session already runs ${id} (profile ${current}).`, { tone: 'dim' });
      return;
    }
    const byName = all.find((p) => p.name === id);
    const byModel = all.find((p) => p.model === id);
    if (byName ?? byModel) return switchTo(host, (byName ?? byModel)!.name, `Model ${id}`);
    let variant: string;
    try {
      variant = host.runtime.models.variant(id, current);
    } catch (e) {
      host.print(messageOf(e), { tone: 'error' });
      return;
    }
    await switchTo(
      host,
      variant,
      `Model ${id} (on ${current.split('@')[0]}'s endpoint; checked at the next request)`,
    );
  },
};

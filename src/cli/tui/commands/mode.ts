/**
 * `/mode`: the session's work mode (design, develop, test, review, docs, devops, or one of
 * the config's) and its permission mode (read-only, ask, auto-edit, yolo). The two sets of
 * names are disjoint, so `/mode NAME` sets whichever NAME is; Shift+Tab cycles work modes.
 */

import { nextWorkMode } from '../../../runtime/modes.js';
import { PERMISSION_MODES } from '../../../runtime/permissions.js';
import type { PermissionMode } from '../../../tools/permissions.js';
import type { PickItem, TuiCommand, TuiHost } from '../host.js';

function modeItems(host: TuiHost): PickItem[] {
  const session = host.session();
  const work = host.runtime.modes.map((m) => ({
    value: m.name,
    label: m.name,
    description: `${m.name === session.workMode ? '● ' : ''}work mode · ${m.description} · ${m.permissionMode}`,
  }));
  const permission = PERMISSION_MODES.map((p) => ({
    value: p,
    label: p,
    description: `${p === session.permissionMode ? '● ' : ''}permission mode`,
  }));
  return [...work, ...permission];
}

/** Sets the work mode or the permission mode named `name`; what it did, for the transcript. */
export function setMode(host: TuiHost, name: string): { ok: boolean; text: string } {
  const session = host.session();
  if (host.runtime.modes.some((m) => m.name === name)) {
    session.setWorkMode(name);
    host.refreshStatus();
    return {
      ok: true,
      text: `Work mode: ${name} (permission mode ${session.permissionMode}); it applies from the next prompt.`,
    };
  }
  if ((PERMISSION_MODES as readonly string[]).includes(name)) {
    session.setPermissionMode(name as PermissionMode);
    host.refreshStatus();
    return { ok: true, text: `Permission mode: ${name} (until the next work-mode switch).` };
  }
  const works = host.runtime.modes.map((m) => m.name).join(', ');
  return {
    ok: false,
    text: `No mode "${name}". Work modes: ${works}. Permission modes: ${PERMISSION_MODES.join(', ')}.`,
  };
}

/** Shift+Tab: the next work mode in the runtime's order (wrapping around). */
export function cycleWorkMode(host: TuiHost): string | undefined {
  const session = host.session();
  if (session.workMode === undefined || host.runtime.modes.length === 0) return undefined;
  const next = nextWorkMode(host.runtime.modes, session.workMode);
  session.setWorkMode(next);
  host.refreshStatus();
  return next;
}

export const modeCommand: TuiCommand = {
  name: 'mode',
  description: 'Show or switch the work mode (design, develop, …) or the permission mode',
  argumentHint: '[mode]',
  complete: (prefix, host) => modeItems(host).filter((i) => i.value.startsWith(prefix)),
  async run(arg, host) {
    const name = arg.trim();
    if (name) {
      const r = setMode(host, name);
      host.print(r.text, { tone: r.ok ? 'success' : 'error' });
      return;
    }
    const session = host.session();
    const chosen = await host.pick({
      title: `Mode (work: ${session.workMode ?? 'none'}, permission: ${session.permissionMode}) — Shift+Tab cycles work modes`,
      items: modeItems(host),
      ...(session.workMode ? { selected: session.workMode } : {}),
    });
    if (chosen === undefined) return;
    const r = setMode(host, chosen);
    host.print(r.text, { tone: r.ok ? 'success' : 'error' });
  },
};

/** Work modes over HTTP: the list (`GET /v1/modes`); a session's mode is read and set on the session routes. */
import type { WorkModeInfo } from '../runtime/modes.js';
import { type AppContext, doc } from './routes.js';

export interface ModeView {
  name: string;
  description: string;
  /** The permission mode a switch to it sets. */
  permission_mode: string;
  tool_count: number;
  builtin: boolean;
}

export function modeView(m: WorkModeInfo): ModeView {
  return {
    name: m.name,
    description: m.description,
    permission_mode: m.permissionMode,
    tool_count: m.toolCount,
    builtin: m.builtin,
  };
}

export function modeRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  doc(ctx, {
    method: 'get',
    path: '/v1/modes',
    summary: 'Work modes, in cycling order, and the default one',
    tag: 'sessions',
  });
  app.get('/v1/modes', (c) => {
    const data = deps.sessions.modes().map(modeView);
    return c.json({ object: 'list', data, default: deps.sessions.defaultMode() });
  });
}

/** `GET /v1/config` (masked: secrets never appear) and `POST /v1/config/switch`. */

import { parse } from 'yaml';
import * as z from 'zod';
import { maskedConfig } from '../config/mask.js';
import { type AppContext, doc } from './routes.js';
import { readJson } from './validate.js';

const switchBody = z.object({ profile: z.string().min(1) });

export function configRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;

  doc(ctx, {
    method: 'get',
    path: '/v1/config',
    summary: 'The effective config, secrets masked',
    tag: 'config',
  });
  app.get('/v1/config', async (c) => {
    const masked = parse(maskedConfig(deps.config)) as Record<string, unknown>;
    return c.json({
      ...masked,
      permission_mode: deps.permissionMode,
      active_profile: deps.agents.active,
      profiles: deps.agents.profiles().map((p) => p.name),
    });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/config/switch',
    summary: 'Switch the active profile',
    tag: 'config',
    body: switchBody,
  });
  app.post('/v1/config/switch', async (c) => {
    const body = await readJson(c, switchBody);
    deps.agents.active = await deps.agents.resolve(body.profile, 'profile');
    return c.json({ active_profile: deps.agents.active });
  });
}

/** `GET /v1/models` and `GET /v1/models/{id}`: the model profiles as OpenAI model objects. */
import { apiError } from './errors.js';
import { type AppContext, doc } from './routes.js';

interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'tea';
  /** Tea: the underlying model id. */
  model: string;
}

/** `tea` (the active profile) first, then every profile by name. */
function modelObjects(ctx: AppContext): ModelObject[] {
  const profiles = ctx.deps.agents.profiles();
  const active = profiles.find((p) => p.name === ctx.deps.agents.active);
  const created = Math.floor(Date.now() / 1000);
  const entry = (id: string, model: string): ModelObject => ({
    id,
    object: 'model',
    created,
    owned_by: 'tea',
    model,
  });
  return [...(active ? [entry('tea', active.model)] : []), ...profiles.map((p) => entry(p.name, p.model))];
}

export function modelRoutes(ctx: AppContext): void {
  const { app } = ctx;
  doc(ctx, {
    method: 'get',
    path: '/v1/models',
    summary: 'Model profiles (tea = the active one)',
    tag: 'openai',
  });
  app.get('/v1/models', (c) => c.json({ object: 'list', data: modelObjects(ctx) }));

  doc(ctx, {
    method: 'get',
    path: '/v1/models/:id',
    summary: 'One model profile (tea = the active one); 404 model_not_found',
    tag: 'openai',
  });
  app.get('/v1/models/:id', (c) => {
    const id = c.req.param('id');
    const all = modelObjects(ctx);
    const found = all.find((m) => m.id === id);
    if (!found) {
      throw apiError(
        404,
        `The model '${id}' does not exist: this server has ${all.map((m) => m.id).join(', ') || 'no models'} (GET /v1/models)`,
        { param: 'model', code: 'model_not_found' },
      );
    }
    return c.json(found);
  });
}

/**
 * Tool routes: the catalogue, and running one tool directly. A direct run obeys
 * the server's permission mode; an "ask" is refused with 403 since nobody can approve.
 */
import * as z from 'zod';
import { type DirectRun, runDirect } from '../runtime/tool-run.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { Tool } from '../tools/types.js';
import { whileAborted } from './abort.js';
import { type ApiError, apiError } from './errors.js';
import { type AppContext, doc } from './routes.js';
import { readJson } from './validate.js';

const runBody = z.object({ args: z.record(z.string(), z.unknown()).default({}) });

/** A refused direct run: 403, saying why and with which flags `tea serve` would let it run. */
function refusal(refused: Extract<DirectRun, { ran: false }>): ApiError {
  const { verdict } = refused;
  const why =
    verdict.action === 'ask'
      ? `needs approval (${verdict.reason}), and nobody can approve a direct run`
      : `is not allowed here (${verdict.reason})`;
  const how = refused.rerun ? `; to let it run, restart tea serve with ${refused.rerun}` : '';
  return apiError(403, `${refused.label} ${why}${how}`, {
    type: 'permission_error',
    param: 'name',
    code: 'permission_denied',
  });
}

/** The tool itself (see `ToolRegistry.load`); a tool whose code cannot load is a 500 naming it. */
async function loadTool(tools: ToolRegistry, name: string): Promise<Tool> {
  try {
    return (await tools.load(name))!;
  } catch (error) {
    throw apiError(500, error instanceof Error ? error.message : String(error), {
      type: 'server_error',
      code: 'tool_not_loaded',
    });
  }
}

export function toolRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  const { tools } = deps;

  doc(ctx, { method: 'get', path: '/v1/tools', summary: 'Every tool with its JSON schema', tag: 'tools' });
  app.get('/v1/tools', (c) =>
    c.json({
      object: 'list',
      data: tools.list().map((t) => ({
        name: t.name,
        category: t.category,
        description: t.description,
        read_only: t.readOnly,
        approval: t.approval,
        parameters: tools.specs([t.name])[0]!.parameters,
      })),
    }),
  );

  doc(ctx, {
    method: 'post',
    path: '/v1/tools/:name/run',
    summary: 'Run one tool (obeys the permission mode)',
    tag: 'tools',
    body: runBody,
  });
  app.post('/v1/tools/:name/run', async (c) => {
    const name = c.req.param('name');
    if (!tools.has(name)) {
      const near = tools.closest(name);
      throw apiError(
        404,
        `unknown tool ${JSON.stringify(name)}${near.length ? `; did you mean: ${near.join(', ')}?` : ''}`,
        {
          param: 'name',
          code: 'tool_not_found',
        },
      );
    }
    const body = await readJson(c, runBody);
    // Validation and the permission check need the tool itself: its code loads here.
    const tool = await loadTool(tools, name);
    const parsed = await tool.parameters.safeParseAsync(body.args);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `args.${issue.path.map(String).join('.')}` : 'args';
      throw apiError(400, `${where}: ${issue?.message ?? 'invalid arguments'}`, {
        param: where,
        code: 'invalid_value',
      });
    }
    // The run gets a signal of its own: the request's outlives the request, with every listener on it.
    // It runs under the rules and roots sessions get (`--allow`, `--add-dir` included).
    const abort = new AbortController();
    const result = await whileAborted(
      c.req.raw.signal,
      () => abort.abort(),
      () =>
        runDirect(tool, body.args, parsed.data, {
          tools,
          cwd: deps.cwd,
          mode: deps.permissionMode,
          rules: deps.permissionRules,
          roots: deps.allowedRoots,
          maxOutputChars: deps.config.tools.maxOutputChars,
          signal: abort.signal,
        }),
    );
    if (!result.ran) throw refusal(result);
    return c.json({ status: result.status, output: result.output });
  });
}

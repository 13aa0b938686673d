/**
 * Loading a workflow written as a module (`.ts`, `.mts`, `.js`, `.mjs`): esbuild
 * bundles it (its own relative imports and packages from the project included) into
 * CommonJS, which runs here with `tea-agent` (and `tea-agent/workflow`) and `zod`
 * given as tea's own, so its schemas are the zod the engine checks with. The module
 * is the user's code, run as a config file is; expressions in it are still never
 * evaluated as code.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { loadZodModule } from '../roles/zod-full.js';
import * as api from './define.js';
import { type DefinedWorkflow, fromSpec, WORKFLOW_SPEC } from './define.js';
import { WorkflowDefinitionError } from './errors.js';
import type { WorkflowDefinition } from './types.js';

const SHARED = ['tea-agent', 'tea-agent/workflow', 'zod'];

function isDefined(v: unknown): v is DefinedWorkflow {
  return v !== null && typeof v === 'object' && (v as Record<symbol, unknown>)[WORKFLOW_SPEC] === true;
}

type Esbuild = typeof import('esbuild');

async function esbuild(file: string): Promise<Esbuild> {
  try {
    return await import('esbuild');
  } catch {
    throw new WorkflowDefinitionError(file, [
      {
        message: 'a workflow module needs esbuild to load, and it is not installed',
        fix: 'run npm install in the tea-agent package, or write the workflow as YAML',
      },
    ]);
  }
}

export async function loadWorkflowModule(file: string): Promise<WorkflowDefinition> {
  const { build } = await esbuild(file);
  let code: string;
  try {
    const result = await build({
      entryPoints: [file],
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      external: SHARED,
      logLevel: 'silent',
      absWorkingDir: path.dirname(file),
    });
    code = result.outputFiles[0]!.text;
  } catch (e) {
    const errors =
      (e as { errors?: Array<{ text: string; location?: { line: number } | null }> }).errors ?? [];
    const problems = errors.slice(0, 5).map((err) => ({
      message: `does not compile: ${err.text}`,
      ...(err.location ? { line: err.location.line } : {}),
    }));
    throw new WorkflowDefinitionError(
      file,
      problems.length > 0 ? problems : [{ message: (e as Error).message }],
    );
  }
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  const projectRequire = createRequire(file);
  // All of zod, loaded from node_modules (the bundle holds only the parts tea uses itself).
  const zod = await loadZodModule();
  const shared = (id: string): unknown => (id === 'zod' ? zod : api);
  const requireFor = (id: string): unknown => (SHARED.includes(id) ? shared(id) : projectRequire(id));
  const mod: { exports: Record<string, unknown> } = { exports: {} };
  try {
    const fn = vm.compileFunction(code, ['exports', 'require', 'module', '__filename', '__dirname'], {
      filename: file,
    });
    fn(mod.exports, requireFor, mod, file, path.dirname(file));
  } catch (e) {
    throw new WorkflowDefinitionError(file, [{ message: `failed while loading: ${(e as Error).message}` }]);
  }
  const value = [mod.exports.default, mod.exports.workflow, mod.exports].find(isDefined);
  if (!value) {
    throw new WorkflowDefinitionError(file, [
      {
        message: 'exports no workflow',
        fix: "export default defineWorkflow({ … }) (import { defineWorkflow } from 'tea-agent')",
      },
    ]);
  }
  return fromSpec(value.spec, { kind: 'module', file, hash });
}

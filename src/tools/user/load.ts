/**
 * Running a user tool's bundle: evaluated as a function compiled by node:vm (a fresh
 * evaluation each load: no module cache to bust or leak), in strict mode, with the
 * gates of its declared class for `require` and the renamed globals (gate.ts). Its
 * default export is checked for the tool shape, and becomes a `Tool`.
 *
 * Loading a saved version (`loadUserTool`) trusts nothing on disk: both files must
 * match the hashes in the manifest, the bundle is checked again (analyse.ts) against
 * the class the manifest declares, and the module's own facts must be the manifest's.
 * A manifest edited by hand to lower a tool's approval class therefore stops the tool
 * from loading, with a message naming the evidence, instead of running it under the
 * lower class.
 */
import { lstatSync } from 'node:fs';
import vm from 'node:vm';
import type * as Z from 'zod';
import { parametersSchema } from '../schema.js';
import {
  type ApprovalClass,
  type ElicitAnswer,
  type ElicitRequest,
  type SampleAnswer,
  type SampleRequest,
  TOOL_LOG_LEVELS,
  type Tool,
  ToolError,
  type ToolLogLevel,
  type ToolProgress,
  type ToolReturn,
} from '../types.js';
import { analyse, evidenceText, GLOBAL_PREFIX } from './analyse.js';
import { covers, isApprovalClass } from './classes.js';
import { CheckError, MAX_BUNDLE_BYTES, MAX_SOURCE_BYTES } from './compile.js';
import { GATE_PARAMS, type Gates, gatesFor } from './gate.js';
import { sha256 } from './hash.js';
import { USER_CATEGORY } from './info.js';
import { readPlainFile, toolDir, type VersionEntry, versionFile } from './manifest.js';
import { resultParts } from './result-parts.js';

/** What a tool module's default export holds, checked. */
export interface ToolDefinition {
  name: string;
  description: string;
  approval: ApprovalClass;
  keywords: string[];
  parameters: Z.ZodType;
  run(args: unknown, ctx: UserToolContext): unknown;
}

/** What `run` receives besides its arguments. */
export interface UserToolContext {
  cwd: string;
  sessionId: string;
  callId: string;
  signal: AbortSignal;
  /** Reports progress of a long run (`{ progress, total?, message? }`); does nothing when nobody listens. */
  progress(update: ToolProgress): void;
  /** A log line ('debug' … 'emergency', as MCP logging); does nothing when nobody listens. */
  log(level: ToolLogLevel, message: string): void;
  /** Asks the user to fill in a form; rejects where nobody can be asked. */
  elicit(request: ElicitRequest): Promise<ElicitAnswer>;
  /** Asks the caller's model; rejects where no model can be asked. */
  sample(request: SampleRequest): Promise<SampleAnswer>;
}

let zod: Promise<unknown> | undefined;

/** All of zod from node_modules: what `import * as z from 'zod'` gives a tool (the same instance every time). */
export function userZod(): Promise<unknown> {
  zod ??= import('zod/v4');
  return zod;
}

/** Evaluates a bundle; resolves with its default export (undefined when it has none). */
export function evaluate(name: string, version: string, code: string, gates: Gates): unknown {
  const marks = GATE_PARAMS.map((p) => `${GLOBAL_PREFIX}${p}`);
  const fn = vm.compileFunction(
    `"use strict";${code}`,
    ['exports', 'require', 'module', '__filename', '__dirname', ...marks],
    {
      filename: `${name}@${version}.js`,
    },
  );
  const mod: { exports: Record<string, unknown> } = { exports: {} };
  const values = GATE_PARAMS.map((p) => gates.globals[p as keyof Gates['globals']]);
  fn.call(mod.exports, mod.exports, gates.require, mod, `${name}.ts`, '.', ...values);
  return mod.exports.default;
}

const SHAPE =
  "export default { name, description, approval: 'none' | 'write' | 'network' | 'exec', keywords?, parameters: z.object({...}), run(args, ctx) }";

function problemsOf(value: Record<string, unknown>, name: string): string[] {
  const problems: string[] = [];
  if (value.name !== name)
    problems.push(`its name is ${JSON.stringify(value.name)}, not ${JSON.stringify(name)}`);
  const d = value.description;
  if (typeof d !== 'string' || d.trim() === '' || d.length > 1000)
    problems.push('its description must be a non-empty string of at most 1,000 characters');
  if (!isApprovalClass(value.approval))
    problems.push(
      `its approval is ${JSON.stringify(value.approval)}; use 'none', 'write', 'network' or 'exec'`,
    );
  const k = value.keywords;
  if (
    k !== undefined &&
    !(
      Array.isArray(k) &&
      k.length <= 16 &&
      k.every((w) => typeof w === 'string' && w.length > 0 && w.length <= 40)
    )
  )
    problems.push('its keywords must be a list of at most 16 words of 1-40 characters');
  const p = value.parameters as { _zod?: unknown; safeParseAsync?: unknown; type?: unknown } | undefined;
  if (typeof p !== 'object' || p === null || p._zod === undefined || typeof p.safeParseAsync !== 'function')
    problems.push("its parameters must be a zod schema (import * as z from 'zod'; z.object({...}))");
  else if (p.type !== 'object')
    problems.push(`its parameters must be z.object({...}), not z.${String(p.type)}(...)`);
  if (typeof value.run !== 'function')
    problems.push('its run must be a function (args, ctx) => string | { output, isError }');
  return problems;
}

/** The default export checked for the tool shape; throws a `CheckError` naming every problem. */
export function definitionOf(value: unknown, name: string): ToolDefinition {
  if (typeof value !== 'object' || value === null)
    throw new CheckError(`the module has no default export object`, `end it with ${SHAPE}`);
  const problems = problemsOf(value as Record<string, unknown>, name);
  if (problems.length > 0)
    throw new CheckError(`the tool's default export is wrong: ${problems.join('; ')}`, SHAPE);
  const def = value as ToolDefinition;
  return { ...def, keywords: def.keywords ?? [], run: def.run.bind(def) };
}

/** The JSON Schema of the parameters the model sees; throws a `CheckError` when it cannot be made. */
export function schemaOf(def: ToolDefinition): Record<string, unknown> {
  try {
    def.parameters.toJSONSchema({ io: 'input' });
    return parametersSchema({ name: def.name, parameters: def.parameters });
  } catch (e) {
    throw new CheckError(
      `its parameters cannot be expressed as JSON Schema: ${(e as Error).message}`,
      'use JSON types only (strings, numbers, booleans, arrays, objects, enums); no dates, functions, maps or transforms',
    );
  }
}

function resultOf(name: string, value: unknown): ToolReturn {
  if (typeof value === 'string') return value;
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { output?: unknown }).output === 'string'
  ) {
    const { output, isError, images, audio, resources } = value as {
      output: string;
      isError?: unknown;
      images?: unknown;
      audio?: unknown;
      resources?: unknown;
    };
    const parts = resultParts(name, { images, audio, resources });
    return { output, isError: isError === true, ...parts };
  }
  throw new ToolError(
    `${name} returned ${value === null ? 'null' : typeof value}`,
    "a tool's run must return a string or { output, isError?, images?, audio?, resources? }",
  );
}

/** The `Tool` the registry runs, from a checked definition. */
export function toolOf(def: ToolDefinition): Tool {
  return {
    name: def.name,
    description: def.description,
    category: USER_CATEGORY,
    keywords: def.keywords,
    readOnly: def.approval === 'none',
    concurrencySafe: false,
    approval: def.approval,
    parameters: def.parameters,
    async execute(args, ctx) {
      const value = await def.run(args, {
        cwd: ctx.cwd,
        sessionId: ctx.sessionId,
        callId: ctx.callId,
        signal: ctx.signal,
        progress: (update) => {
          if (typeof update?.progress === 'number' && Number.isFinite(update.progress))
            ctx.progress?.(update);
        },
        log: (level, message) => {
          if (TOOL_LOG_LEVELS.includes(level)) ctx.log?.(level, String(message));
        },
        elicit: async (request) => {
          if (!ctx.elicit)
            throw new ToolError(
              'nobody can be asked here',
              'elicit works when the client offers elicitation',
            );
          return ctx.elicit(request);
        },
        sample: async (request) => {
          if (!ctx.sample)
            throw new ToolError('no model can be asked here', 'sample works when the client offers sampling');
          return ctx.sample(request);
        },
      });
      return resultOf(def.name, value);
    },
  };
}

/** JSON with object keys sorted, to compare two schemas. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
}

function differences(def: ToolDefinition, entry: VersionEntry): string[] {
  const out: string[] = [];
  if (def.approval !== entry.approval)
    out.push(`approval: the manifest says "${entry.approval}", the code "${def.approval}"`);
  if (def.description !== entry.description) out.push('the description differs');
  if (stableJson(def.keywords) !== stableJson(entry.keywords)) out.push('the keywords differ');
  if (stableJson(schemaOf(def)) !== stableJson(entry.parameters)) out.push('the parameters schema differs');
  return out;
}

/** The saved version `entry` of the tool `name`, checked again and loaded (see the module comment). */
export async function loadUserTool(home: string, name: string, entry: VersionEntry): Promise<Tool> {
  const dir = toolDir(home, name);
  if (!lstatSync(dir).isDirectory()) throw new Error(`${dir} is not a plain directory`);
  const v = entry.version;
  const source = readPlainFile(versionFile(home, name, v, 'ts'), MAX_SOURCE_BYTES);
  const bundle = readPlainFile(versionFile(home, name, v, 'cjs'), MAX_BUNDLE_BYTES);
  if (sha256(source) !== entry.sha256 || sha256(bundle) !== entry.bundleSha256)
    throw new Error(`the files of version ${v} do not match the hashes in its manifest (changed by hand?)`);
  const analysis = analyse(bundle);
  if (analysis.refused.length > 0)
    throw new Error(`its code is not allowed: ${evidenceText(analysis.refused)}`);
  if (!covers(entry.approval, analysis.needs))
    throw new Error(
      `its manifest declares approval "${entry.approval}", but its code needs "${analysis.needs}": ${evidenceText(analysis.evidence)}`,
    );
  const def = definitionOf(evaluate(name, v, bundle, gatesFor(name, entry.approval, await userZod())), name);
  const differ = differences(def, entry);
  if (differ.length > 0) throw new Error(`its manifest does not match its code (${differ.join('; ')})`);
  return toolOf(def);
}

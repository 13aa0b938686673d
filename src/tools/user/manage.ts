/**
 * tool_create, tool_update, tool_versions and tool_rollback: the agent writing tools
 * for itself. A new version is checked (check.ts), saved (store.ts), loaded from disk
 * as any later process would load it (load.ts), and only then registered in the
 * shared registry and loaded for the calling session, so the model can call it in its
 * very next step. A version that fails to load is taken back. Calls for one tool run
 * one at a time.
 */
import * as z from 'zod';
import type { ToolRegistry } from '../registry.js';
import { summarizeParameters } from '../schema.js';
import { defineTool, type Tool, type ToolContext, ToolError } from '../types.js';
import { checkTool } from './check.js';
import { CheckError } from './compile.js';
import { nameClash, registerUserTool } from './entries.js';
import { MANAGE_TOOL_INFO, type ManageToolName } from './info.js';
import { loadUserTool } from './load.js';
import { currentEntry, NAME_PATTERN, toolDir, type UserToolManifest } from './manifest.js';
import { type Saved, UserToolStore } from './store.js';

export interface ManageSetup {
  /** The registry user tools are registered in (the runtime's, shared by its sessions). */
  registry: ToolRegistry;
  home: string;
  now?: () => Date;
}

const name = z
  .string()
  .regex(NAME_PATTERN, 'use 2-48 lower-case letters, digits or _, starting with a letter')
  .describe('The tool name (lower case, digits, _)');
const code = z.string().describe('The whole TypeScript module (at most 64 KB)');

export const MANAGE_SCHEMAS = {
  tool_create: z.object({ name, code }),
  tool_update: z.object({
    name,
    code,
    bump: z
      .enum(['patch', 'minor', 'major'])
      .optional()
      .describe('Which part of the version goes up (default patch: 1.0.0 → 1.0.1)'),
  }),
  tool_versions: z.object({ name }),
  tool_rollback: z.object({ name, version: z.string().describe('The version to make current, e.g. 1.0.0') }),
};

const queues = new Map<string, Promise<unknown>>();

/** Runs `job` after every earlier job for the same key. */
function serial<T>(key: string, job: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).then(job, job);
  const tail = run.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}

function checkName(tool: string, registry: ToolRegistry, ctx: ToolContext): void {
  const clash = nameClash(tool, ctx.tools ?? registry) ?? nameClash(tool, registry);
  if (clash !== undefined)
    throw new ToolError(`cannot use the name ${tool}: ${clash}`, 'choose another name');
}

async function checked(tool: string, source: string, version: string) {
  try {
    return await checkTool(tool, source, version);
  } catch (e) {
    if (e instanceof CheckError) throw new ToolError(`${tool} was not saved: ${e.message}`, e.hint);
    throw e;
  }
}

function summary(
  verb: string,
  manifest: UserToolManifest,
  home: string,
  tool: Tool,
  ctx: ToolContext,
): string {
  const entry = currentEntry(manifest);
  const spec = { name: tool.name, description: tool.description, parameters: entry.parameters };
  const needs = entry.needs === entry.approval ? '' : `; its code needs ${entry.needs}`;
  // A sub-agent's tool set is fixed when it starts: the tool is there for sessions started later.
  const here = ctx.tools === undefined || ctx.tools.has(manifest.name);
  const use = here
    ? `Its schema is loaded: call ${manifest.name} directly now.`
    : 'It is registered for sessions started from now on (this session has a fixed set of tools).';
  return [
    `${verb} ${manifest.name} ${entry.version} (approval ${entry.approval}${needs}), saved in ${toolDir(home, manifest.name)}.`,
    `${use} Parameters: ${summarizeParameters(spec)}.`,
  ].join('\n');
}

export function manageTool(which: ManageToolName, setup: ManageSetup): Tool {
  const { registry, home } = setup;
  const store = new UserToolStore(home, setup.now);
  const key = (tool: string) => `${home}\u0000${tool}`;

  /** Loads a just-saved version from disk; takes it back when that fails. */
  const activate = async (saved: Saved, ctx: ToolContext): Promise<Tool> => {
    let tool: Tool;
    try {
      tool = await loadUserTool(home, saved.manifest.name, saved.entry);
    } catch (e) {
      store.undo(saved);
      throw new ToolError(
        `${saved.manifest.name} was saved but does not load, so it was taken back: ${(e as Error).message}`,
      );
    }
    registerUserTool(registry, home, saved.manifest, tool);
    ctx.host?.loadTools([saved.manifest.name]);
    return tool;
  };

  const info = MANAGE_TOOL_INFO[which];
  switch (which) {
    case 'tool_create':
      return defineTool({
        ...info,
        parameters: MANAGE_SCHEMAS.tool_create,
        subject: (args) => args.name,
        execute: (args, ctx) =>
          serial(key(args.name), async () => {
            checkName(args.name, registry, ctx);
            const existing = store.read(args.name);
            if (existing)
              throw new ToolError(
                `the tool ${args.name} exists already (version ${existing.current})`,
                'change it with tool_update',
              );
            const result = await checked(args.name, args.code, '1.0.0');
            const saved = store.add(args.name, args.code, result, { expectNew: true });
            return summary('Created', saved.manifest, home, await activate(saved, ctx), ctx);
          }),
      });
    case 'tool_update':
      return defineTool({
        ...info,
        parameters: MANAGE_SCHEMAS.tool_update,
        subject: (args) => args.name,
        execute: (args, ctx) =>
          serial(key(args.name), async () => {
            checkName(args.name, registry, ctx);
            if (!store.read(args.name))
              throw new ToolError(`there is no tool ${args.name} to update`, 'create it with tool_create');
            const result = await checked(args.name, args.code, 'update');
            const saved = store.add(args.name, args.code, result, {
              expectNew: false,
              ...(args.bump ? { bump: args.bump } : {}),
            });
            const was = saved.previous?.current;
            return `${summary('Updated', saved.manifest, home, await activate(saved, ctx), ctx)}\nThe previous version ${was} stays saved (tool_rollback returns to it).`;
          }),
      });
    case 'tool_versions':
      return defineTool({
        ...info,
        parameters: MANAGE_SCHEMAS.tool_versions,
        async execute(args) {
          const manifest = store.read(args.name);
          if (!manifest)
            throw new ToolError(
              `there is no tool ${args.name}`,
              'tool_list shows the tools there are (category user)',
            );
          const lines = manifest.versions.map(
            (v) =>
              `${v.version === manifest.current ? '*' : ' '} ${v.version}  ${v.created}  approval ${v.approval}  sha256 ${v.sha256.slice(0, 12)}`,
          );
          return `${manifest.name}: ${manifest.versions.length} version(s), current ${manifest.current} (*)\n${lines.join('\n')}`;
        },
      });
    case 'tool_rollback':
      return defineTool({
        ...info,
        parameters: MANAGE_SCHEMAS.tool_rollback,
        subject: (args) => `${args.name}@${args.version}`,
        execute: (args, ctx) =>
          serial(key(args.name), async () => {
            checkName(args.name, registry, ctx);
            let change: ReturnType<UserToolStore['setCurrent']>;
            try {
              change = store.setCurrent(args.name, args.version);
            } catch (e) {
              throw new ToolError((e as Error).message, 'tool_versions lists the saved versions');
            }
            const { before, after } = change;
            let tool: Tool;
            try {
              tool = await loadUserTool(home, args.name, currentEntry(after));
            } catch (e) {
              store.restore(before);
              throw new ToolError(
                `${args.name} ${args.version} does not load, so ${before.current} stays current: ${(e as Error).message}`,
              );
            }
            registerUserTool(registry, home, after, tool);
            ctx.host?.loadTools([args.name]);
            return `${summary('Rolled back', after, home, tool, ctx)}\n(It was at ${before.current}.)`;
          }),
      });
  }
}

/**
 * Workflows in TypeScript: a module exports `defineWorkflow({...})`, its state and
 * input as zod schemas, its nodes as objects (or with the helpers `agent`, `tool`,
 * …). Templates and conditions may be text, as in YAML, or functions of the scope:
 *
 *   import { agent, defineWorkflow, end } from 'tea-agent';
 *   import { z } from 'zod';
 *   export default defineWorkflow({
 *     name: 'triage',
 *     input: z.object({ issue: z.string() }),
 *     state: z.object({ label: z.string() }),
 *     nodes: {
 *       classify: agent({ role: 'analyst', prompt: (s) => `Label: ${s.input.issue}`, output: 'label', next: 'done' }),
 *       done: end(),
 *     },
 *   });
 *
 * A function must depend only on its scope: a resumed run calls it again to rebuild
 * what the recorded results lead to.
 */
import * as z from 'zod';
import type { PermissionMode } from '../../tools/permissions.js';
import { type DefinitionProblem, WorkflowDefinitionError } from './errors.js';
import type { Scope } from './expr-eval.js';
import type { DefinitionSource, WorkflowDefinition, WorkflowNode } from './types.js';
import { NODE_KINDS } from './types.js';
import { validateDefinition } from './validate.js';

export const WORKFLOW_SPEC = Symbol.for('tea.workflow.spec');

type Fn<Sc> = (scope: Sc) => unknown;
type Tpl<Sc> = string | Fn<Sc>;

interface Common<Sc> {
  title?: string;
  next?: string;
  output?: string;
  set?: Record<string, Tpl<Sc>>;
  onError?: 'fail' | 'continue';
}

export type NodeSpec<Sc = Scope> =
  | (Common<Sc> & {
      kind: 'agent';
      role: string;
      prompt: Tpl<Sc>;
      outputSchema?: Record<string, unknown> | z.ZodType;
    })
  | (Common<Sc> & { kind: 'tool'; tool: string; args?: Record<string, unknown> })
  | (Common<Sc> & { kind: 'condition'; when: Tpl<Sc>; routes: Record<string, string>; default?: string })
  | (Common<Sc> & { kind: 'parallel'; branches: string[]; join: string; concurrency?: number })
  | (Common<Sc> & { kind: 'join' })
  | (Common<Sc> & {
      kind: 'loop';
      body: string;
      while?: Tpl<Sc>;
      until?: Tpl<Sc>;
      max: number;
      onMax?: 'fail' | 'continue';
    })
  | (Common<Sc> & { kind: 'wait'; seconds?: number | Tpl<Sc>; approval?: Tpl<Sc>; onReject?: string })
  | (Common<Sc> & { kind: 'workflow'; workflow: string; input?: Record<string, unknown> })
  | (Common<Sc> & { kind: 'end'; result?: Tpl<Sc> });

/** The scope as a TypeScript workflow's functions see it: typed state and input. */
export type TypedScope<I extends z.ZodObject, S extends z.ZodObject> = Omit<Scope, 'state' | 'input'> & {
  state: Partial<z.output<S>>;
  input: z.output<I>;
};

export interface WorkflowSpec<I extends z.ZodObject = z.ZodObject, S extends z.ZodObject = z.ZodObject> {
  name: string;
  description?: string;
  mode?: PermissionMode;
  input?: I;
  state?: S;
  /** The first node (default: the first one in `nodes`). */
  start?: string;
  nodes: Record<string, NodeSpec<TypedScope<I, S>>>;
}

/** What a workflow module exports. */
export interface DefinedWorkflow {
  readonly [WORKFLOW_SPEC]: true;
  readonly spec: WorkflowSpec;
}

export function defineWorkflow<I extends z.ZodObject = z.ZodObject, S extends z.ZodObject = z.ZodObject>(
  spec: WorkflowSpec<I, S>,
): DefinedWorkflow {
  return { [WORKFLOW_SPEC]: true, spec: spec as unknown as WorkflowSpec };
}

type Without<K extends NodeSpec['kind']> = Omit<Extract<NodeSpec, { kind: K }>, 'kind'>;
export const agent = (n: Without<'agent'>): NodeSpec => ({ kind: 'agent', ...n });
export const tool = (n: Without<'tool'>): NodeSpec => ({ kind: 'tool', ...n });
export const condition = (n: Without<'condition'>): NodeSpec => ({ kind: 'condition', ...n });
export const parallel = (n: Without<'parallel'>): NodeSpec => ({ kind: 'parallel', ...n });
export const join = (n: Without<'join'> = {}): NodeSpec => ({ kind: 'join', ...n });
export const loop = (n: Without<'loop'>): NodeSpec => ({ kind: 'loop', ...n });
export const wait = (n: Without<'wait'>): NodeSpec => ({ kind: 'wait', ...n });
export const subWorkflow = (n: Without<'workflow'>): NodeSpec => ({ kind: 'workflow', ...n });
export const end = (n: Without<'end'> = {}): NodeSpec => ({ kind: 'end', ...n });

const REQUIRED: Partial<Record<NodeSpec['kind'], string[]>> = {
  agent: ['role', 'prompt'],
  tool: ['tool'],
  condition: ['when', 'routes'],
  parallel: ['branches', 'join'],
  loop: ['body', 'max'],
  workflow: ['workflow'],
};

/** A zod schema, whichever copy of zod made it (a workflow module's comes from node_modules). */
function isZod(v: unknown): v is z.ZodType {
  return typeof v === 'object' && v !== null && '_zod' in v;
}

/** State keys are absent until written: each key without a default becomes optional. */
function optionalKeys(schema: z.ZodObject): z.ZodObject {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([k, s]) => [
      k,
      s instanceof z.ZodDefault || s instanceof z.ZodOptional ? s : (s as z.ZodType).optional(),
    ]),
  );
  return z.object(shape);
}

/** A module's spec as a validated definition (like a parsed YAML file). */
export function fromSpec(spec: WorkflowSpec, source: DefinitionSource): WorkflowDefinition {
  const problems: DefinitionProblem[] = [];
  if (typeof spec?.name !== 'string' || spec.name === '') problems.push({ key: 'name', message: 'missing' });
  if (spec?.nodes === null || typeof spec?.nodes !== 'object' || Object.keys(spec.nodes).length === 0) {
    problems.push({ key: 'nodes', message: 'missing or empty', fix: 'add nodes: { <id>: agent({...}), … }' });
    throw new WorkflowDefinitionError(source.file, problems);
  }
  for (const [key, schema] of [
    ['input', spec.input],
    ['state', spec.state],
  ] as const) {
    if (schema !== undefined && !(schema instanceof z.ZodObject)) {
      problems.push({ key, message: 'expected a zod object schema', fix: `${key}: z.object({ … })` });
    }
  }
  const nodes: Record<string, WorkflowNode> = {};
  for (const [id, raw] of Object.entries(spec.nodes)) {
    const n = raw as NodeSpec & Record<string, unknown>;
    if (!(NODE_KINDS as readonly string[]).includes(n?.kind)) {
      problems.push({
        node: id,
        key: 'kind',
        message: `"${String(n?.kind)}"`,
        fix: `use one of ${NODE_KINDS.join(', ')}`,
      });
      continue;
    }
    for (const k of REQUIRED[n.kind] ?? []) {
      if (n[k] === undefined)
        problems.push({ node: id, key: k, message: 'missing', fix: `add ${k} to this ${n.kind} node` });
    }
    const node = { ...n, id } as Record<string, unknown>;
    if (n.kind === 'parallel') node.concurrency = n.concurrency ?? n.branches?.length ?? 1;
    if (n.kind === 'loop') node.onMax = n.onMax ?? 'fail';
    if (n.kind === 'tool') node.args = n.args ?? {};
    if (n.kind === 'workflow') node.input = n.input ?? {};
    if (n.kind === 'agent' && isZod(n.outputSchema)) node.outputSchema = z.toJSONSchema(n.outputSchema);
    nodes[id] = node as unknown as WorkflowNode;
  }
  if (problems.length > 0) throw new WorkflowDefinitionError(source.file, problems);
  const def: WorkflowDefinition = {
    name: spec.name,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.mode ? { mode: spec.mode } : {}),
    input: spec.input ?? z.object({}),
    state: optionalKeys(spec.state ?? z.object({})),
    start: spec.start ?? Object.keys(nodes)[0]!,
    nodes,
    source,
  };
  validateDefinition(def, source.file);
  return def;
}

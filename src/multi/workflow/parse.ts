/**
 * A YAML workflow file to a definition: the shape of every key checked, each
 * problem reported with the file, line, node and a fix (then validate.ts checks the
 * graph). Keys are snake_case in YAML (`on_error`, `output_schema`).
 */
import { createHash } from 'node:crypto';
import { isMap, LineCounter, parseDocument } from 'yaml';
import { didYouMean } from '../../config/suggest.js';
import { PERMISSION_MODES, type PermissionMode } from '../../tools/permissions.js';
import { type DefinitionProblem, WorkflowDefinitionError } from './errors.js';
import { fieldsSchema, SchemaSpecError } from './schema.js';
import {
  type DefinitionSource,
  NODE_KINDS,
  type NodeKind,
  type WorkflowDefinition,
  type WorkflowNode,
} from './types.js';
import { validateDefinition } from './validate.js';

const TOP_KEYS = ['name', 'description', 'mode', 'input', 'state', 'start', 'nodes'];
const COMMON = ['kind', 'title', 'next', 'output', 'set', 'on_error'];
const KIND_KEYS: Record<NodeKind, string[]> = {
  agent: ['role', 'prompt', 'output_schema'],
  tool: ['tool', 'args'],
  condition: ['when', 'routes', 'default'],
  parallel: ['branches', 'join', 'concurrency'],
  join: [],
  loop: ['body', 'while', 'until', 'max', 'on_max'],
  wait: ['seconds', 'approval', 'on_reject'],
  workflow: ['workflow', 'input'],
  end: ['result'],
};
/** Keys a kind does not take even though most kinds do. */
const NOT_FOR: Partial<Record<NodeKind, string[]>> = { condition: ['next'], end: ['next'] };

export function hashText(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

type Problems = DefinitionProblem[];

/** Reads one node's keys into its definition; problems go to `out`. */
function readNode(
  id: string,
  raw: unknown,
  out: Problems,
  line: number | undefined,
): WorkflowNode | undefined {
  const p = (key: string | undefined, message: string, fix?: string): void => {
    out.push({
      node: id,
      ...(key ? { key } : {}),
      message,
      ...(fix ? { fix } : {}),
      ...(line ? { line } : {}),
    });
  };
  if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(id)) {
    p(undefined, 'a node id must be a name (a letter, then letters, digits, _ and -)', 'rename it');
    return undefined;
  }
  if (!isRecord(raw)) {
    p(undefined, 'expected a mapping of keys (kind, next, …)', `write it as "${id}: { kind: agent, … }"`);
    return undefined;
  }
  const kind = raw.kind;
  if (typeof kind !== 'string' || !(NODE_KINDS as readonly string[]).includes(kind)) {
    const got = kind === undefined ? 'missing' : `"${String(kind)}"`;
    p(
      'kind',
      `${got}${typeof kind === 'string' ? didYouMean(kind, NODE_KINDS) : ''}`,
      `set kind to one of ${NODE_KINDS.join(', ')}`,
    );
    return undefined;
  }
  const k = kind as NodeKind;
  const allowed = [...COMMON, ...KIND_KEYS[k]].filter((key) => !NOT_FOR[k]?.includes(key));
  for (const key of Object.keys(raw)) {
    if (allowed.includes(key)) continue;
    const why = NOT_FOR[k]?.includes(key)
      ? ` (a ${k} node ${k === 'end' ? 'ends the run' : 'goes on by its routes'})`
      : '';
    p(
      key,
      `unknown key for a ${k} node${why}${didYouMean(key, allowed)}`,
      `remove it or use one of ${allowed.join(', ')}`,
    );
  }
  const str = (key: string, required: boolean): string | undefined => {
    const v = raw[key];
    if (v === undefined || v === null) {
      if (required) p(key, 'missing', `add ${key}: … to this ${k} node`);
      return undefined;
    }
    if (typeof v !== 'string' || v === '') {
      p(key, `expected text, got ${JSON.stringify(v)}`);
      return undefined;
    }
    return v;
  };
  const map = (key: string): Record<string, unknown> | undefined => {
    const v = raw[key];
    if (v === undefined || v === null) return undefined;
    if (!isRecord(v)) {
      p(key, `expected a mapping, got ${JSON.stringify(v)}`);
      return undefined;
    }
    return v;
  };
  const onError = str('on_error', false);
  if (onError !== undefined && onError !== 'fail' && onError !== 'continue')
    p('on_error', `"${onError}"`, 'use fail or continue');
  const base = {
    id,
    ...(str('title', false) ? { title: str('title', false)! } : {}),
    ...(str('next', false) ? { next: str('next', false)! } : {}),
    ...(str('output', false) ? { output: str('output', false)! } : {}),
    ...(map('set') ? { set: map('set') as Record<string, string> } : {}),
    ...(onError === 'continue' ? { onError: 'continue' as const } : {}),
  };
  switch (k) {
    case 'agent': {
      const schema = map('output_schema');
      return {
        ...base,
        kind: k,
        role: str('role', true) ?? '',
        prompt: str('prompt', true) ?? '',
        ...(schema ? { outputSchema: schema } : {}),
      };
    }
    case 'tool':
      return { ...base, kind: k, tool: str('tool', true) ?? '', args: map('args') ?? {} };
    case 'condition': {
      const when = raw.when;
      if (typeof when !== 'string' && typeof when !== 'boolean')
        p('when', 'missing', 'add when: <expression>, e.g. when: len(state.issues) > 0');
      const routes = map('routes');
      if (!routes) p('routes', 'missing', 'add routes: { true: <node>, false: <node> }');
      const labels = Object.fromEntries(Object.entries(routes ?? {}).map(([l, t]) => [l, String(t)]));
      const dflt = str('default', false);
      return {
        ...base,
        kind: k,
        when: String(when ?? ''),
        routes: labels,
        ...(dflt ? { default: dflt } : {}),
      };
    }
    case 'parallel': {
      const branches = raw.branches;
      const list = Array.isArray(branches) ? branches.map(String) : [];
      if (list.length === 0)
        p('branches', 'expected a list of the first node of each branch', 'add branches: [a, b]');
      const c = raw.concurrency;
      if (c !== undefined && !(Number.isInteger(c) && (c as number) >= 1))
        p('concurrency', `expected a whole number ≥ 1, got ${JSON.stringify(c)}`);
      return {
        ...base,
        kind: k,
        branches: list,
        join: str('join', true) ?? '',
        concurrency: typeof c === 'number' ? c : list.length || 1,
      };
    }
    case 'join':
      return { ...base, kind: k };
    case 'loop': {
      const max = raw.max;
      if (max === undefined)
        p('max', 'missing: a loop needs a guard', 'add max: <the most iterations>, e.g. max: 5');
      else if (!(Number.isInteger(max) && (max as number) >= 1))
        p('max', `expected a whole number ≥ 1, got ${JSON.stringify(max)}`);
      const onMax = str('on_max', false);
      if (onMax !== undefined && onMax !== 'fail' && onMax !== 'continue')
        p('on_max', `"${onMax}"`, 'use fail or continue');
      const w = str('while', false);
      const u = str('until', false);
      return {
        ...base,
        kind: k,
        body: str('body', true) ?? '',
        max: typeof max === 'number' ? max : 1,
        onMax: onMax === 'continue' ? 'continue' : 'fail',
        ...(w ? { while: w } : {}),
        ...(u ? { until: u } : {}),
      };
    }
    case 'wait': {
      const seconds = raw.seconds;
      const approval = str('approval', false);
      if ((seconds === undefined) === (approval === undefined))
        p(
          undefined,
          'a wait node needs exactly one of seconds (a timer) or approval (a question for the user)',
          'add seconds: 30 or approval: "Go on?"',
        );
      if (
        seconds !== undefined &&
        typeof seconds !== 'string' &&
        !(typeof seconds === 'number' && seconds >= 0)
      )
        p('seconds', `expected a number ≥ 0 or a template, got ${JSON.stringify(seconds)}`);
      const onReject = str('on_reject', false);
      return {
        ...base,
        kind: k,
        ...(seconds !== undefined ? { seconds: seconds as number | string } : {}),
        ...(approval ? { approval } : {}),
        ...(onReject ? { onReject } : {}),
      };
    }
    case 'workflow':
      return { ...base, kind: k, workflow: str('workflow', true) ?? '', input: map('input') ?? {} };
    case 'end': {
      const result = raw.result;
      return {
        ...base,
        kind: k,
        ...(result !== undefined
          ? { result: typeof result === 'string' ? result : JSON.stringify(result) }
          : {}),
      };
    }
  }
}

/** Parses and validates a YAML workflow; throws a WorkflowDefinitionError listing every problem. */
export function parseWorkflowYaml(
  text: string,
  source: Omit<DefinitionSource, 'hash' | 'text'>,
  display = source.file,
): WorkflowDefinition {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  const fail = (problems: Problems): never => {
    throw new WorkflowDefinitionError(display, problems);
  };
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    fail([
      {
        message: `not valid YAML: ${e.message.split('\n')[0]}`,
        line: counter.linePos(e.pos[0]).line,
        fix: 'check the indentation and quoting there',
      },
    ]);
  }
  const raw: unknown = doc.toJS();
  if (!isRecord(raw))
    fail([
      { message: 'expected a mapping with name, nodes, …', fix: 'see README "Workflows" for the format' },
    ]);
  const top = raw as Record<string, unknown>;
  const lineOf = (path: string[]): number | undefined => {
    const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
    return node?.range ? counter.linePos(node.range[0]).line : undefined;
  };
  const problems: Problems = [];
  for (const key of Object.keys(top)) {
    if (!TOP_KEYS.includes(key))
      problems.push({
        key,
        message: `unknown key${didYouMean(key, TOP_KEYS)}`,
        fix: `use ${TOP_KEYS.join(', ')}`,
        line: lineOf([key]),
      });
  }
  const name = top.name;
  if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) {
    problems.push({
      key: 'name',
      message: name === undefined ? 'missing' : `"${String(name)}" is not a name`,
      fix: 'add name: <letters, digits, - _ .>',
    });
  }
  const mode = top.mode;
  if (mode !== undefined && !PERMISSION_MODES.includes(mode as PermissionMode)) {
    problems.push({
      key: 'mode',
      message: `"${String(mode)}"`,
      fix: `use one of ${PERMISSION_MODES.join(', ')}`,
    });
  }
  const sections = { input: fieldsSchema(undefined, 'input'), state: fieldsSchema(undefined, 'state') };
  for (const section of ['input', 'state'] as const) {
    try {
      sections[section] = fieldsSchema(top[section], section);
    } catch (e) {
      if (!(e instanceof SchemaSpecError)) throw e;
      problems.push({
        message: e.message,
        line: lineOf(e.key.split('.')),
        fix: 'see README "Workflows" (state and input)',
      });
    }
  }
  const rawNodes = top.nodes;
  if (!isMap(doc.get('nodes', true)) || !isRecord(rawNodes) || Object.keys(rawNodes).length === 0) {
    fail([
      ...problems,
      { key: 'nodes', message: 'missing or empty', fix: 'add nodes: { <id>: { kind: …, … }, … }' },
    ]);
  }
  const nodes: Record<string, WorkflowNode> = {};
  for (const [id, rawNode] of Object.entries(rawNodes as Record<string, unknown>)) {
    const node = readNode(id, rawNode, problems, lineOf(['nodes', id]));
    if (node) nodes[id] = node;
  }
  const start = typeof top.start === 'string' ? top.start : (Object.keys(nodes)[0] ?? '');
  if (problems.length > 0) fail(problems);
  const def: WorkflowDefinition = {
    name: name as string,
    ...(typeof top.description === 'string' ? { description: top.description } : {}),
    ...(mode !== undefined ? { mode: mode as PermissionMode } : {}),
    input: sections.input.schema,
    state: sections.state.schema,
    start,
    nodes,
    source: { ...source, text, hash: hashText(text) },
  };
  validateDefinition(def, display, (id) => lineOf(['nodes', id]));
  return def;
}

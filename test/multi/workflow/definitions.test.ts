/** Workflow files: the ones that load, and a table of bad ones with the error each gets (file, line, node, fix). */
import { describe, expect, it } from 'vitest';
import { WorkflowCatalog } from '../../../src/multi/workflow/catalog.js';
import { WorkflowDefinitionError } from '../../../src/multi/workflow/errors.js';
import { parseWorkflowYaml } from '../../../src/multi/workflow/parse.js';

const FILE = '/p/.tea/workflows/bad.yaml';

function problems(text: string): string {
  try {
    parseWorkflowYaml(text, { kind: 'yaml', file: FILE });
  } catch (e) {
    if (e instanceof WorkflowDefinitionError) return e.message;
    throw e;
  }
  throw new Error('expected a WorkflowDefinitionError, but the file loaded');
}

const ok = `name: ok
state: { out: string }
nodes:
  a: { kind: agent, role: coder, prompt: "hi", output: out }
`;

describe('workflow definitions', () => {
  it('a good file loads: start defaults to the first node, state defaults apply', () => {
    const def = parseWorkflowYaml(ok, { kind: 'yaml', file: FILE });
    expect(def.start).toBe('a');
    expect(def.nodes.a).toMatchObject({ kind: 'agent', role: 'coder', output: 'out' });
    expect(def.source.hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('every built-in flow loads', async () => {
    const catalog = new WorkflowCatalog({ cwd: '/nonexistent', home: '/nonexistent' });
    const list = await catalog.list();
    expect(list.map((e) => e.name)).toEqual(['docs', 'feature', 'fix', 'refactor', 'review', 'test']);
    expect(list.filter((e) => e.error)).toEqual([]);
    expect(list.every((e) => e.where === 'builtin' && e.description)).toBe(true);
  });

  it.each([
    ['not YAML', 'name: x\nnodes: [a\n', /bad\.yaml:\d+: not valid YAML: .* Fix: check the indentation/],
    ['no nodes', 'name: x\n', /bad\.yaml: nodes: missing or empty\. Fix: add nodes:/],
    ['a bad name', 'name: "two words"\nnodes: { a: { kind: end } }\n', /name: "two words" is not a name/],
    [
      'an unknown top key',
      `${ok}nodse: {}\n`,
      /bad\.yaml:5: nodse: unknown key; did you mean mode or nodes\? Fix: use name, description/,
    ],
    [
      'an unknown kind',
      'name: x\nnodes:\n  a: { kind: agnet }\n',
      /bad\.yaml:3: node "a": kind: "agnet"; did you mean agent\? Fix: set kind to one of agent, tool,/,
    ],
    [
      'a key another kind takes',
      'name: x\nnodes:\n  a: { kind: agent, role: r, prompt: p, tool: bash }\n',
      /node "a": tool: unknown key for a agent node.* Fix: remove it or use one of/,
    ],
    [
      'a missing role',
      'name: x\nnodes:\n  a: { kind: agent, prompt: p }\n',
      /node "a": role: missing\. Fix: add role:/,
    ],
    [
      'next to no such node',
      'name: x\nnodes:\n  a: { kind: agent, role: r, prompt: p, next: bb }\n  b: { kind: end }\n',
      /node "a": next: no node named "bb"; did you mean b or a\?/,
    ],
    [
      'a loop without a guard',
      'name: x\nnodes:\n  l: { kind: loop, body: b }\n  b: { kind: agent, role: r, prompt: p }\n',
      /node "l": max: missing: a loop needs a guard\. Fix: add max:/,
    ],
    [
      'a cycle instead of a loop',
      'name: x\nnodes:\n  a: { kind: agent, role: r, prompt: p, next: b }\n  b: { kind: agent, role: r, prompt: p, next: a }\n',
      /node "a": the nodes a → b → a form a cycle\. Fix: repeat work with a loop node/,
    ],
    [
      'a node never reached',
      'name: x\nnodes:\n  a: { kind: end }\n  lost: { kind: agent, role: r, prompt: p }\n',
      /bad\.yaml:4: node "lost": is never reached from the start node "a"/,
    ],
    [
      'an end inside a branch',
      'name: x\nnodes:\n  p: { kind: parallel, branches: [a], join: j }\n  a: { kind: end }\n  j: { kind: join }\n',
      /node "a": an end node ends the whole run, but this one is in branch 1 of "p"/,
    ],
    [
      'a join that is not one',
      'name: x\nnodes:\n  p: { kind: parallel, branches: [a], join: a }\n  a: { kind: agent, role: r, prompt: p }\n',
      /node "p": join: "a" is a agent node, not a join/,
    ],
    [
      'a node shared by two branches',
      'name: x\nnodes:\n  p: { kind: parallel, branches: [a, b], join: j }\n  a: { kind: agent, role: r, prompt: p, next: c }\n  b: { kind: agent, role: r, prompt: p, next: c }\n  c: { kind: agent, role: r, prompt: p }\n  j: { kind: join }\n',
      /node "c": is reached from branch 1 of "p" and from branch 2 of "p"/,
    ],
    [
      'an undeclared state key',
      'name: x\nstate: { files: array }\nnodes:\n  a: { kind: agent, role: r, prompt: p, output: filez }\n',
      /node "a": output: "filez" is not a state key; did you mean files\? Fix: declare it under state:/,
    ],
    [
      'a template reading an undeclared key',
      'name: x\nstate: { files: array }\nnodes:\n  a: { kind: agent, role: r, prompt: "{{state.flies}}" }\n',
      /node "a": prompt: state\.flies is not declared; did you mean files\?/,
    ],
    [
      'an expression that does not parse',
      'name: x\nnodes:\n  c: { kind: condition, when: "len(state.x) >", routes: { true: a } }\n  a: { kind: end }\n',
      /node "c": when: the expression ends too early at column 15 of `len\(state\.x\) >`/,
    ],
    [
      'an unknown function',
      'name: x\nnodes:\n  c: { kind: condition, when: "size(input.x)", routes: { true: a } }\n  a: { kind: end }\n',
      /node "c": when: unknown function size\(\)/,
    ],
    [
      'an unknown name',
      'name: x\nnodes:\n  a: { kind: agent, role: r, prompt: "{{stat.x}}" }\n',
      /node "a": prompt: unknown name "stat"; did you mean state\?/,
    ],
    [
      'loop outside a loop',
      'name: x\nnodes:\n  a: { kind: agent, role: r, prompt: "{{loop.index}}" }\n',
      /node "a": prompt: "loop" is only set inside a loop body/,
    ],
    [
      'a wait with neither timer nor approval',
      'name: x\nnodes:\n  w: { kind: wait }\n',
      /node "w": a wait node needs exactly one of seconds \(a timer\) or approval/,
    ],
    [
      'a bad state type',
      'name: x\nstate:\n  files: { type: list }\nnodes:\n  a: { kind: end }\n',
      /bad\.yaml:3: state\.files: unknown type "list": use one of string, number, integer/,
    ],
    [
      'a default that does not fit',
      'name: x\nstate:\n  n: { type: integer, default: "two" }\nnodes:\n  a: { kind: end }\n',
      /state\.n\.default: the default does not fit the type: expected number, received string/,
    ],
    [
      'a node id that is not a name',
      'name: x\nnodes:\n  "two words": { kind: end }\n',
      /bad\.yaml:3: node "two words": a node id must be a name/,
    ],
    [
      'a state key that is not a name',
      'name: x\nstate:\n  __proto__: string\nnodes:\n  a: { kind: end }\n',
      /state\.__proto__: a key must be a name templates can read/,
    ],
    [
      'a bad mode',
      'name: x\nmode: god\nnodes:\n  a: { kind: end }\n',
      /mode: "god"\. Fix: use one of read-only, ask, auto-edit, yolo/,
    ],
  ])('%s', (_what, text, expected) => {
    const message = problems(text);
    expect(message).toMatch(expected);
    expect(message.startsWith(`${FILE}`)).toBe(true);
  });

  it('lists every problem of a file, one line each', () => {
    const message = problems('name: x\nnodes:\n  a: { kind: agent, next: b }\n  b: { kind: tool }\n');
    expect(message.split('\n')).toEqual([
      `${FILE}:3: node "a": role: missing. Fix: add role: … to this agent node`,
      `${FILE}:3: node "a": prompt: missing. Fix: add prompt: … to this agent node`,
      `${FILE}:4: node "b": tool: missing. Fix: add tool: … to this tool node`,
    ]);
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layer map from ARCHITECTURE.md, enforced: which top-level folders of src/
 * each folder may import (its own folder is always allowed). Type-only imports
 * listed under `types` are allowed too (a shape, not a dependency).
 */
/** The layers under the runtime, whose shapes (types) a face may name. */
const BELOW_RUNTIME = ['agent', 'multi', 'schedule', 'evolve', 'llm', 'tools', 'context', 'memory'];

const LAYERS: Record<string, { may: string[]; types?: string[] }> = {
  util: { may: [] },
  llm: { may: ['util'] },
  store: { may: ['util'], types: ['llm'] },
  config: { may: ['util'], types: ['llm'] },
  tools: { may: ['llm', 'store', 'util'] },
  context: { may: ['llm', 'store', 'util'] },
  memory: { may: ['llm', 'store', 'util'] },
  agent: { may: ['llm', 'tools', 'context', 'memory', 'store', 'config', 'util'] },
  multi: { may: ['agent', 'llm', 'tools', 'context', 'memory', 'store', 'config', 'util'] },
  evolve: { may: ['agent', 'llm', 'tools', 'context', 'memory', 'store', 'config', 'util'] },
  schedule: { may: ['agent', 'llm', 'tools', 'context', 'memory', 'store', 'config', 'util'] },
  runtime: {
    may: [
      'agent',
      'multi',
      'schedule',
      'evolve',
      'llm',
      'tools',
      'context',
      'memory',
      'store',
      'config',
      'util',
    ],
  },
  // Faces: values from the runtime (and config, util); shapes from below.
  server: { may: ['runtime', 'config', 'util'], types: BELOW_RUNTIME },
  acp: { may: ['runtime', 'config', 'util'], types: BELOW_RUNTIME },
  cli: { may: ['runtime', 'server', 'acp', 'config', 'util'], types: BELOW_RUNTIME },
};

const SRC = path.resolve(__dirname, '..', 'src');

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return walk(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

const IMPORT_RE =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'"\n;]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function edgesOf(file: string): Edge[] {
  const text = readFileSync(file, 'utf8');
  const edges: Edge[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[3] ?? m[4];
    if (!spec?.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
    edges.push({ from: file, to: target, typeOnly: Boolean(m[2]) });
  }
  return edges;
}

function layerOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0] ?? '';
}

const files = walk(SRC);
const edges = files.flatMap(edgesOf);

describe('architecture', () => {
  it('finds the source files and their imports', () => {
    expect(files.length).toBeGreaterThan(10);
    expect(edges.length).toBeGreaterThan(10);
  });

  it('every relative import points at an existing file', () => {
    const known = new Set(files);
    const broken = edges
      .filter((e) => !known.has(e.to))
      .map((e) => `${path.relative(SRC, e.from)} -> ${e.to}`);
    expect(broken).toEqual([]);
  });

  it('layers import downward only (ARCHITECTURE.md)', () => {
    const violations: string[] = [];
    for (const e of edges) {
      const from = layerOf(e.from);
      const to = layerOf(e.to);
      if (from === to) continue;
      const rule = LAYERS[from];
      if (!rule) {
        violations.push(`${from}/ is not in the layer map`);
        continue;
      }
      const ok = rule.may.includes(to) || (e.typeOnly && rule.types?.includes(to));
      if (!ok) violations.push(`${path.relative(SRC, e.from)} imports ${path.relative(SRC, e.to)}`);
    }
    expect(violations).toEqual([]);
  });

  it('no face (cli, server, acp) imports store/ or tools/builtin/, not even a type', () => {
    const faces = new Set(['cli', 'server', 'acp']);
    const reached = edges
      .filter((e) => faces.has(layerOf(e.from)))
      .map((e) => ({ e, to: path.relative(SRC, e.to).split(path.sep) }))
      .filter(({ to }) => to[0] === 'store' || (to[0] === 'tools' && to[1] === 'builtin'))
      .map(({ e }) => `${path.relative(SRC, e.from)} imports ${path.relative(SRC, e.to)}`);
    expect(reached).toEqual([]);
  });

  it('has no import cycles', () => {
    const graph = new Map<string, string[]>();
    for (const e of edges) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (node: string): void => {
      state.set(node, 'open');
      stack.push(node);
      for (const next of graph.get(node) ?? []) {
        const s = state.get(next);
        if (s === 'open') {
          const loop = stack.slice(stack.indexOf(next)).concat(next);
          cycles.push(loop.map((f) => path.relative(SRC, f)).join(' -> '));
        } else if (s === undefined) {
          visit(next);
        }
      }
      stack.pop();
      state.set(node, 'done');
    };
    for (const f of files) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it('no source file grows past 400 lines', () => {
    const big = files
      .map((f) => ({ f: path.relative(SRC, f), n: readFileSync(f, 'utf8').split('\n').length }))
      .filter((x) => x.n > 400)
      .map((x) => `${x.f} (${x.n} lines)`);
    expect(big).toEqual([]);
  });
});

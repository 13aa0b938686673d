/** `tea workflow list | show | history`: what there is and what a run did (text, or `--json`). */
import type { CatalogEntry, NodeView } from '../multi/workflow/index.js';
import type { CheckpointRow } from '../runtime/workflows.js';
import { EXIT } from './exit.js';
import { jsonText } from './json-out.js';
import { type RunFlags, withWorkflows } from './workflow-cmd.js';

const MARK: Record<string, string> = {
  completed: '✓',
  failed: '✗',
  running: '▶',
  waiting: '⏸',
  interrupted: '⚠',
  cancelled: '■',
  pending: '·',
};

function when(ms: number | null | undefined): string {
  return ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : '-';
}

function oneLine(value: unknown, max = 100): string {
  const text = (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const WHERE: Record<CatalogEntry['where'], string> = {
  project: 'project',
  user: 'yours',
  builtin: 'built-in',
};

export function listWorkflows(flags: RunFlags): Promise<number> {
  return withWorkflows(flags, false, async (wf) => {
    const defs = await wf.definitions();
    const runs = wf.runs(flags.limit ?? 20);
    if (flags.json) {
      process.stdout.write(
        jsonText({ workflows: defs, runs: runs.map((r) => ({ ...r, definition: undefined })) }),
      );
      return EXIT.OK;
    }
    const width = Math.max(8, ...defs.map((d) => d.name.length));
    process.stdout.write(
      'Workflows (tea workflow run <name>; copy a built-in one to .tea/workflows/ to edit it):\n',
    );
    const shadowed = new Set<string>();
    for (const d of defs) {
      const hidden = shadowed.has(d.name) ? ' (shadowed by the one above)' : '';
      shadowed.add(d.name);
      const about = d.error ? `invalid: ${d.error}` : (d.description ?? '');
      process.stdout.write(
        `  ${d.name.padEnd(width)}  ${WHERE[d.where].padEnd(8)}  ${oneLine(about, 80)}${hidden}\n`,
      );
      process.stdout.write(`  ${''.padEnd(width)}  ${''.padEnd(8)}  ${d.file}\n`);
    }
    process.stdout.write(runs.length === 0 ? '\nNo runs yet.\n' : '\nRuns (newest first):\n');
    for (const r of runs) {
      process.stdout.write(
        `  ${r.id.slice(0, 8)}  ${MARK[r.view] ?? ' '} ${r.view.padEnd(11)}  ${when(r.updatedAt)}  ${r.workflow}\n`,
      );
    }
    return EXIT.OK;
  });
}

function nodeLine(n: NodeView): string {
  const tries = n.attempts > 1 ? `  (${n.attempts} attempts)` : '';
  const what = n.error
    ? `  ${oneLine(n.error)}`
    : n.value !== undefined && n.value !== null
      ? `  → ${oneLine(n.value, 60)}`
      : '';
  const session = n.sessionId
    ? `\n      session ${n.sessionId.slice(0, 8)} (tea sessions show ${n.sessionId.slice(0, 8)})`
    : '';
  return `  ${MARK[n.status] ?? ' '} ${n.key}  (${n.kind})${tries}${what}${session}\n`;
}

export function showRun(id: string, flags: RunFlags): Promise<number> {
  return withWorkflows(flags, false, async (wf) => {
    const d = await wf.get(id);
    const r = d.run;
    if (flags.json) {
      process.stdout.write(jsonText({ ...d, run: { ...r, definition: undefined } }));
      return EXIT.OK;
    }
    const lines = [
      `run ${r.id}  (workflow ${r.workflow})`,
      `  status: ${MARK[d.status] ?? ''} ${d.status}`,
      `  source: ${r.source}${d.changed ? '  (changed since the run started)' : ''}`,
      `  started: ${when(r.createdAt)}  updated: ${when(r.updatedAt)}  finished: ${when(r.finishedAt)}`,
      `  input: ${oneLine(r.input)}`,
      ...(r.status === 'completed' ? [`  output: ${oneLine(r.output, 300)}`] : []),
      ...(r.error ? [`  error: ${r.error}`] : []),
      ...(r.forkedFrom ? [`  forked from: ${r.forkedFrom} at checkpoint ${r.forkedSeq}`] : []),
      ...(r.parentRunId ? [`  sub-workflow of: ${r.parentRunId} (node ${r.parentNode})`] : []),
      ...d.children.map((c) => `  sub-run: ${c.id} (${c.workflow}, ${c.status}) at ${c.parentNode}`),
      `  state: ${oneLine(r.state, 300)}`,
      '',
      'nodes:',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    for (const n of d.nodes) process.stdout.write(nodeLine(n));
    if (d.nodes.length === 0) process.stdout.write('  (none started yet)\n');
    process.stdout.write(`\ngraph (Mermaid):\n\`\`\`mermaid\n${d.graph}\`\`\`\n`);
    return EXIT.OK;
  });
}

function checkpointLine(c: CheckpointRow): string {
  const data = (c.data ?? {}) as { value?: unknown; meta?: { error?: string } };
  const what =
    c.event === 'start'
      ? ''
      : data.meta?.error
        ? `  ${oneLine(data.meta.error, 80)}`
        : data.value !== undefined && data.value !== null
          ? `  → ${oneLine(data.value, 60)}`
          : '';
  const status = c.event === 'result' ? ` ${c.status}` : '';
  return `${String(c.seq).padStart(4)}  ${when(c.createdAt).slice(11)}  ${c.event.padEnd(6)}${status}  ${c.nodeKey} (${c.kind})${what}\n`;
}

export function runHistory(id: string, flags: RunFlags): Promise<number> {
  return withWorkflows(flags, false, async (wf) => {
    const rows = wf.history(id);
    if (flags.json) {
      process.stdout.write(jsonText({ checkpoints: rows }));
      return EXIT.OK;
    }
    if (rows.length === 0) process.stdout.write('No checkpoints yet.\n');
    for (const c of rows) process.stdout.write(checkpointLine(c));
    if (rows.length > 0)
      process.stdout.write(`\nfork from any: tea workflow fork ${rows[0]!.runId.slice(0, 8)} <seq>\n`);
    return EXIT.OK;
  });
}

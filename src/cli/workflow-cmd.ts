/**
 * `tea workflow run | resume | fork | cancel`: a run followed on the terminal (one
 * line per node on stderr, the output on stdout) or as JSON lines (`--json`). Ctrl-C
 * cancels the run (completed nodes stay recorded: `tea workflow resume` goes on).
 * Exit codes: 0 completed, 1 failed, 2 a bad workflow or input, 4 waiting for an
 * approval, 130 cancelled.
 */
import { createInterface } from 'node:readline/promises';
import { loadConfig } from '../config/load.js';
import type { ApprovalPort, RunHandle, RunOutcome, WorkflowEvent } from '../multi/workflow/index.js';
import { workspaceDir } from '../runtime/directories.js';
import { BACKGROUND_GRACE_MS, createRuntime, type Runtime } from '../runtime/runtime.js';
import type { WorkflowsService } from '../runtime/workflows.js';
import { EXIT, UsageError } from './exit.js';
import { jsonText } from './json-out.js';
import { cliRuntime } from './runtime.js';

export interface RunFlags {
  json?: boolean;
  input?: string[];
  permissionMode?: string;
  yolo?: boolean;
  allow?: string[];
  addDir?: string[];
  profile?: string;
  model?: string;
  maxTurns?: number;
  cwd?: string;
  approve?: boolean;
  reject?: boolean;
  limit?: number;
}

/** `--input k=v` values: JSON when the workflow's key is not text (checked by the workflow's schema). */
export function parseInputs(values: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const v of values) {
    const at = v.indexOf('=');
    const key = v.slice(0, at);
    if (key in out) throw new UsageError(`--input ${key} is given twice`);
    out[key] = v.slice(at + 1);
  }
  return out;
}

/** Asks on the terminal; none when stdin or stderr is not one (the run then waits for `resume --approve`). */
function terminalApprovals(): ApprovalPort | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return async ({ question, signal }) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question(`⏸ ${question} — approve? [y/N] `, { signal });
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  };
}

/** Errors of workflows (a bad file, an unknown run) as the CLI reports them. */
function reportWorkflowError(e: unknown): number | undefined {
  if (!(e instanceof Error)) return undefined;
  if (e.name === 'WorkflowDefinitionError') {
    process.stderr.write(`tea: invalid workflow\n${e.message}\n`);
    return EXIT.USAGE;
  }
  if (e.name === 'WorkflowRunError') {
    process.stderr.write(`tea: ${e.message}\n`);
    const code = (e as { code?: string }).code;
    return code === 'busy' || code === 'changed' ? EXIT.ERROR : EXIT.USAGE;
  }
  return undefined;
}

/** Opens the runtime (a model is needed only to run), its workflows service, and reports workflow errors. */
export async function withWorkflows(
  flags: RunFlags,
  running: boolean,
  fn: (wf: WorkflowsService, rt: Runtime) => Promise<number>,
): Promise<number> {
  const rt = running
    ? await cliRuntime({ ...flags, approvals: 'deny', titles: false })
    : await createRuntime({
        config: await loadConfig({ cwd: workspaceDir(flags.cwd), detectOllama: false }),
        ...(flags.cwd ? { cwd: flags.cwd } : {}),
        titles: false,
      });
  try {
    const approvals = running ? terminalApprovals() : undefined;
    const wf = await rt.workflows(approvals ? { approvals } : {});
    return await fn(wf, rt);
  } catch (e) {
    const code = reportWorkflowError(e);
    if (code === undefined) throw e;
    return code;
  } finally {
    await rt.close({ exiting: true });
  }
}

const short = (id: string): string => id.slice(0, 8);

/** One line per node on stderr; nodes reused from the record are counted, not listed. */
function textEvents(): (e: WorkflowEvent) => void {
  let reused = 0;
  const flush = (): void => {
    if (reused > 0) process.stderr.write(`✓ ${reused} node(s) recorded before: not run again\n`);
    reused = 0;
  };
  const line = (e: WorkflowEvent): string | undefined => {
    switch (e.type) {
      case 'run_start':
        return `tea: ${e.parentRunId ? 'sub-workflow' : 'workflow'} ${e.workflow}: run ${e.runId}${e.resumed ? ' (resumed)' : ''}`;
      case 'node_start':
        return `▶ ${e.nodeKey} (${e.kind})`;
      case 'node_end':
        if (e.status === 'failed') return `✗ ${e.nodeKey}: ${e.error ?? 'failed'}`;
        if (e.approved !== undefined)
          return `${e.approved ? '✓' : '✗'} ${e.nodeKey}: ${e.approved ? 'approved' : 'rejected'}`;
        return ['agent', 'tool', 'wait', 'workflow'].includes(e.kind) ? `✓ ${e.nodeKey}` : undefined;
      case 'approval_request':
        return `⏸ ${e.nodeKey}: ${e.question}`;
      case 'timer':
        return `⏲ ${e.nodeKey}: waits until ${new Date(e.until).toISOString()}`;
      default:
        return undefined;
    }
  };
  return (e) => {
    if (e.type === 'node_end' && e.reused && e.status === 'completed') {
      reused++;
      return;
    }
    const text = line(e);
    if (text === undefined) return;
    flush();
    process.stderr.write(`${text}\n`);
  };
}

/** Every event but the agents' text deltas, one compact JSON object per line on stdout. */
function jsonEvents(e: WorkflowEvent): void {
  if (e.type === 'agent' && (e.event.type === 'text_delta' || e.event.type === 'thinking_delta')) return;
  process.stdout.write(jsonText(e, true));
}

function finish(out: RunOutcome, json: boolean): number {
  const id = out.runId;
  switch (out.status) {
    case 'completed':
      if (!json) {
        const text = typeof out.output === 'string' ? out.output : JSON.stringify(out.output, null, 2);
        process.stdout.write(`${text}\n`);
        process.stderr.write(`tea: run ${id} completed\n`);
      }
      return EXIT.OK;
    case 'failed':
      process.stderr.write(
        `tea: run ${id} failed: ${out.error}\n` +
          `  to retry the failed node (after fixing its cause): tea workflow resume ${short(id)}\n` +
          '  (a run keeps the workflow as it started: after changing the file, start a new run)\n',
      );
      return EXIT.ERROR;
    case 'cancelled':
      process.stderr.write(`tea: run ${id} cancelled; go on with: tea workflow resume ${short(id)}\n`);
      return EXIT.INTERRUPTED;
    case 'waiting':
      process.stderr.write(
        `tea: run ${id} waits for your approval at ${out.waitingFor?.nodeKey}: ${out.waitingFor?.question}\n` +
          `  tea workflow resume ${short(id)} --approve (or --reject)\n`,
      );
      return EXIT.INCOMPLETE;
  }
}

/** Follows a run to its end (or wait); Ctrl-C cancels it, a second one exits at once. */
async function follow(
  wf: WorkflowsService,
  begin: () => Promise<RunHandle>,
  flags: RunFlags,
): Promise<number> {
  const off = wf.subscribe(flags.json ? jsonEvents : textEvents());
  let handle: RunHandle | undefined;
  let stopping = false;
  const onSigint = (): void => {
    if (stopping) process.exit(EXIT.INTERRUPTED);
    stopping = true;
    if (handle) void wf.cancel(handle.runId);
  };
  process.on('SIGINT', onSigint);
  try {
    handle = await begin();
    if (stopping) void wf.cancel(handle.runId);
    const out = await handle.done;
    await wf.settle(BACKGROUND_GRACE_MS);
    return finish(out, Boolean(flags.json));
  } finally {
    off();
    process.off('SIGINT', onSigint);
  }
}

export function runWorkflow(target: string, flags: RunFlags): Promise<number> {
  const input = parseInputs(flags.input);
  return withWorkflows(flags, true, (wf) => follow(wf, () => wf.start(target, input), flags));
}

export function resumeWorkflow(run: string, flags: RunFlags): Promise<number> {
  if (flags.approve && flags.reject) throw new UsageError('--approve and --reject cannot be given together');
  const decision = flags.approve ? true : flags.reject ? false : undefined;
  return withWorkflows(flags, true, async (wf) => {
    const { run: row, changed } = await wf.get(run);
    if (changed) {
      process.stderr.write(
        `tea: warning: ${row.source} changed since run ${short(row.id)} started; its recorded steps are replayed over the new code\n`,
      );
    }
    return follow(wf, () => wf.resume(row.id, decision === undefined ? {} : { decision }), flags);
  });
}

export function forkWorkflow(run: string, seq: number, flags: RunFlags): Promise<number> {
  return withWorkflows(flags, true, (wf) => {
    const row = wf.fork(run, seq);
    process.stderr.write(`tea: forked run ${row.id} from ${row.forkedFrom} at checkpoint ${seq}\n`);
    return follow(wf, () => wf.resume(row.id), flags);
  });
}

export function cancelWorkflow(run: string, flags: RunFlags): Promise<number> {
  return withWorkflows(flags, false, async (wf) => {
    const r = await wf.cancel(run);
    if (r.result === 'cancelled') process.stdout.write(`cancelled run ${r.runId}\n`);
    else if (r.result === 'requested') {
      process.stdout.write(
        `asked the process running ${r.runId} to cancel it (it stops at its next heartbeat)\n`,
      );
    } else process.stdout.write(`run ${r.runId} has already finished\n`);
    return EXIT.OK;
  });
}

/**
 * What self_modify answers: a refusal (nothing was touched), a gate that failed
 * (with the trimmed output that matters and how the rollback went), or the commit.
 * `resultText` turns it into the text the model reads; failures become
 * `[ERROR] self_modify: gate N (<name>) failed` through a ToolError.
 */
import { PatchRefused } from './patch.js';
import type { ChangeKind } from './plan.js';
import type { RestoreReport } from './rollback.js';

export type GateNumber = 0 | 1 | 2 | 3 | 4;

/** Where a run failed: one of the gates, or the commit after all of them passed. */
export type Stage = GateNumber | 'commit';

export const GATE_NAMES: Readonly<Record<GateNumber, string>> = {
  0: 'snapshot',
  1: 'backup',
  2: 'typecheck',
  3: 'lint',
  4: 'tests',
};

export const GATE_HINTS: Readonly<Record<GateNumber, string>> = {
  0: 'the tree is as it was; fix what is named above, then send the patch again',
  1: "the tree is as it was; check that Tea's home is writable and has space",
  2: 'the tree is as it was: fix the type errors at the file(line,col) shown and send the whole patch again',
  3: 'the tree is as it was: fix the new findings (npx biome check <file> shows them; --write fixes formatting) and send the patch again',
  4: 'the tree is as it was: read the failing tests (npx vitest run <file>), make them pass, and send the patch again; a timeout means a hang (an endless loop, a test that never ends)',
};

export interface GateSummaries {
  typecheck: string;
  lint: { before: number; after: number };
  /** '' when no touched file remained to relate tests to. */
  related: string;
  suite: string;
}

export type SelfModifyResult = (
  | { ok: false; refused: true; message: string; hint: string }
  | {
      ok: false;
      refused?: false;
      gate: Stage;
      output: string;
      hint: string;
      /** Absent when the gate failed before anything was written. */
      restore?: RestoreReport;
      backupDir?: string;
    }
  | {
      ok: true;
      /** Absent for a check-only run. */
      commit?: string;
      branch?: string;
      files: Array<{ path: string; kind: ChangeKind }>;
      gates: GateSummaries;
      backupDir: string;
      /** How the tree was restored after a check-only run. */
      restore?: RestoreReport;
      warning?: string;
    }
) & {
  /** Said before the answer (an interrupted earlier run that was put back first). */
  notes?: string[];
};

export function refusal(message: string, hint: string): SelfModifyResult {
  return { ok: false, refused: true, message, hint };
}

/** A `PatchRefused` as a refusal; anything else is rethrown. */
export function refusalFrom(error: unknown): SelfModifyResult {
  if (error instanceof PatchRefused) return refusal(error.message, error.hint);
  throw error;
}

const KIND_LETTER: Record<ChangeKind, string> = { add: 'A', modify: 'M', delete: 'D' };

function restoreLines(r: RestoreReport): string[] {
  const lines: string[] = [];
  if (r.verified) lines.push('The tree was restored byte for byte (checked against the snapshot).');
  else lines.push('WARNING: the rollback could not be verified; tell the user. Problems:');
  for (const p of r.problems) lines.push(`  - ${p}`);
  if (r.removed.length > 0) lines.push(`Removed what the gates left: ${r.removed.join(', ')}`);
  if (r.rewritten.length > 0) lines.push(`Written back from the snapshot: ${r.rewritten.join(', ')}`);
  return lines;
}

/** The model's text for a failure: the ToolError's message and hint. */
export function failureText(r: Exclude<SelfModifyResult, { ok: true }>): { message: string; hint: string } {
  const notes = (r.notes ?? []).map((n) => `\nNote: ${n}`).join('');
  if (r.refused === true)
    return {
      message: `self_modify: the patch was refused, nothing was changed: ${r.message}${notes}`,
      hint: r.hint,
    };
  const head =
    r.gate === 'commit'
      ? 'self_modify: every gate passed, but the commit failed'
      : `self_modify: gate ${r.gate} (${GATE_NAMES[r.gate]}) failed`;
  const lines = [head, r.output];
  if (r.restore) lines.push(...restoreLines(r.restore));
  else lines.push('Nothing had been changed yet.');
  if (r.backupDir) lines.push(`Backup: ${r.backupDir}`);
  return { message: lines.join('\n') + notes, hint: r.hint };
}

/** The model's text for a success. */
export function successText(r: Extract<SelfModifyResult, { ok: true }>): string {
  const g = r.gates;
  const files = r.files.map((f) => `${KIND_LETTER[f.kind]} ${f.path}`).join(', ');
  const gates = [
    `typecheck ok (${g.typecheck})`,
    `lint ${g.lint.before} → ${g.lint.after} findings`,
    ...(g.related ? [`related tests: ${g.related}`] : []),
    `suite: ${g.suite}`,
  ].join(' · ');
  const head =
    r.commit === undefined
      ? 'self_modify (check only): every gate passed; nothing was committed.'
      : `self_modify: committed ${r.commit}${r.branch ? ` on ${r.branch}` : ''}.`;
  const lines = [head, `Tests: ${g.suite}`, `Gates: ${gates}`, `Files: ${files}`, `Backup: ${r.backupDir}`];
  if (r.restore) lines.push(...restoreLines(r.restore));
  if (r.warning) lines.push(`Warning: ${r.warning}`);
  for (const n of r.notes ?? []) lines.push(`Note: ${n}`);
  return lines.join('\n');
}

/**
 * The checks a tool passes before it is saved, in order: it compiles (compile.ts),
 * the static check finds nothing no tool may do, its module evaluates (with the gates
 * of the class its code needs) to a default export of the tool shape, its parameters
 * convert to an object JSON Schema, and its declared approval class covers what the
 * code does (analyse.ts). Each refusal is a `CheckError` naming what to fix.
 */
import type { ApprovalClass } from '../types.js';
import { analyse, type Evidence, evidenceText } from './analyse.js';
import { covers } from './classes.js';
import { CheckError, compileTool } from './compile.js';
import { gatesFor } from './gate.js';
import { definitionOf, evaluate, schemaOf, userZod } from './load.js';

/** A tool that passed: what to save and what the manifest records. */
export interface CheckedTool {
  bundle: string;
  description: string;
  approval: ApprovalClass;
  keywords: string[];
  parameters: Record<string, unknown>;
  needs: ApprovalClass;
  evidence: Evidence[];
}

function tooLow(declared: ApprovalClass, needs: ApprovalClass, evidence: readonly Evidence[]): CheckError {
  return new CheckError(
    `it declares approval '${declared}', but its code needs '${needs}': ${evidenceText(evidence)}`,
    `declare approval: '${needs}' (and say why in the description), or remove what needs more than '${declared}'`,
  );
}

/** The class the module declares, when its text says it once as a literal (`approval: "none"`). */
function declaredApproval(bundle: string): ApprovalClass | undefined {
  const found = new Set([...bundle.matchAll(/\bapproval:\s*"(none|write|network|exec)"/g)].map((m) => m[1]!));
  return found.size === 1 ? ([...found][0] as ApprovalClass) : undefined;
}

/** Checks the module `source` as the tool `name` (the version only names the evaluated file). */
export async function checkTool(name: string, source: string, version = 'check'): Promise<CheckedTool> {
  const bundle = await compileTool(name, source);
  const analysis = analyse(bundle);
  if (analysis.refused.length > 0)
    throw new CheckError(
      `the code does something no tool may do: ${evidenceText(analysis.refused)}`,
      'write the code without eval, new Function, .constructor, node:vm or import(); import modules statically',
    );
  // Refused before the module runs at all when its (literal) declared class is too low.
  const declared = declaredApproval(bundle);
  if (declared !== undefined && !covers(declared, analysis.needs))
    throw tooLow(declared, analysis.needs, analysis.evidence);
  let value: unknown;
  try {
    value = evaluate(name, version, bundle, gatesFor(name, analysis.needs, await userZod()));
  } catch (e) {
    throw new CheckError(
      `the module threw while loading: ${(e as Error).message}`,
      'do the work in run, not at the top of the module',
    );
  }
  const def = definitionOf(value, name);
  const parameters = schemaOf(def);
  if (!covers(def.approval, analysis.needs)) throw tooLow(def.approval, analysis.needs, analysis.evidence);
  return {
    bundle,
    description: def.description,
    approval: def.approval,
    keywords: def.keywords,
    parameters,
    needs: analysis.needs,
    evidence: analysis.evidence,
  };
}

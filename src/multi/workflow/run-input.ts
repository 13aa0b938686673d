/** What a run starts from: its input, checked; and the timer its wait nodes sleep on. */
import { WorkflowRunError } from './errors.js';
import { fitValue, issueText } from './schema.js';
import type { WorkflowDefinition } from './types.js';

/** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The input checked against the definition's input schema (text that is JSON for a non-text key is parsed). */
export function checkInput(def: WorkflowDefinition, input: Record<string, unknown>): Record<string, unknown> {
  const shape = def.input.shape;
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [k, v] of Object.entries(input)) {
    const schema = shape[k];
    if (!schema) {
      const known = Object.keys(shape);
      problems.push(
        `"${k}" is not an input of ${def.name} (${known.length > 0 ? `it takes ${known.join(', ')}` : 'it takes none'})`,
      );
      continue;
    }
    const fit = fitValue(schema, v);
    if (fit.ok) out[k] = fit.value;
    else problems.push(`${k}: ${fit.error}`);
  }
  const parsed = def.input.safeParse(out);
  if (!parsed.success && problems.length === 0) {
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? '');
      problems.push(
        out[key] === undefined && key ? `"${key}" is required (--input ${key}=…)` : issueText(parsed.error),
      );
    }
  }
  if (problems.length > 0)
    throw new WorkflowRunError(`input of workflow ${def.name}: ${problems.join('; ')}`, 'invalid');
  return (parsed.success ? parsed.data : out) as Record<string, unknown>;
}

/** Tool modules as the agent would write them, for the user-tool tests. */
import type { ApprovalClass } from '../../../src/tools/types.js';

export interface SourceOptions {
  name?: string;
  approval?: ApprovalClass;
  description?: string;
  /** Lines before the default export (imports, helpers). */
  head?: string;
  /** The body of run(args, ctx); `args.text` is a string. */
  body?: string;
  /** The parameters expression (default: { text: string }). */
  parameters?: string;
  keywords?: string[];
}

/** A complete tool module; by default `echo_words`, which answers `words: <n>`. */
export function toolSource(o: SourceOptions = {}): string {
  return [
    "import * as z from 'zod';",
    o.head ?? '',
    'export default {',
    `  name: ${JSON.stringify(o.name ?? 'echo_words')},`,
    `  description: ${JSON.stringify(o.description ?? 'Counts the words of a text.')},`,
    `  approval: ${JSON.stringify(o.approval ?? 'none')},`,
    o.keywords ? `  keywords: ${JSON.stringify(o.keywords)},` : '',
    `  parameters: ${o.parameters ?? "z.object({ text: z.string().describe('The text') })"},`,
    '  async run(args: { text: string }, ctx: { cwd: string; signal: AbortSignal }) {',
    `    ${o.body ?? "return 'words: ' + args.text.split(/\\s+/).filter(Boolean).length;"}`,
    '  },',
    '};',
    '',
  ].join('\n');
}

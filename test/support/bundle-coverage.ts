/**
 * What a run of the built CLI evaluated, read from V8's coverage (`NODE_V8_COVERAGE`):
 * the Node built-in modules it loaded, and the source files (through dist/tea.cjs.map)
 * at least one of whose functions ran. In the bundle a lazily loaded module is one
 * function (esbuild's module wrapper), so "no function of it ran" means it was never
 * evaluated; a module evaluated at start runs functions of its own as soon as it is used.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';

interface CoverageFunction {
  functionName: string;
  ranges: Array<{ startOffset: number; endOffset: number; count: number }>;
}

interface ScriptCoverage {
  url: string;
  functions: CoverageFunction[];
}

export interface BundleCoverage {
  /** `node:child_process`, … */
  builtins: Set<string>;
  /** Source paths as the map names them (`src/tools/builtin/read.ts`) with a function that ran. */
  ran: Set<string>;
  /** Source paths with a function in the bundle at all (ran or not). */
  present: Set<string>;
}

/** Reads the coverage files in `dir` for the bundle `bundle` (its .map beside it). */
export function bundleCoverage(dir: string, bundle: string): BundleCoverage {
  const map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')));
  const code = readFileSync(bundle, 'latin1');
  const lineStarts = [0];
  for (let i = code.indexOf('\n'); i >= 0; i = code.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const root = path.resolve(path.dirname(bundle), '..');
  const sourceAt = (offset: number): string | undefined => {
    let line = lineStarts.length - 1;
    while (lineStarts[line]! > offset) line--;
    const entry = map.findEntry(line, offset - lineStarts[line]!);
    if (!('originalSource' in entry)) return undefined;
    return path.relative(root, path.resolve(path.dirname(bundle), entry.originalSource));
  };

  const out: BundleCoverage = { builtins: new Set(), ran: new Set(), present: new Set() };
  const url = `file://${bundle}`;
  for (const file of readdirSync(dir)) {
    const { result } = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { result: ScriptCoverage[] };
    for (const script of result) {
      if (script.url.startsWith('node:') && !script.url.startsWith('node:internal/'))
        out.builtins.add(script.url);
      if (script.url !== url) continue;
      for (const fn of script.functions) {
        const whole = fn.ranges[0];
        if (!whole) continue;
        // A function's source is where its body starts (the wrapper's `()=>{` maps to its module).
        const source = sourceAt(whole.startOffset);
        if (source === undefined) continue;
        out.present.add(source);
        if (whole.count > 0) out.ran.add(source);
      }
    }
  }
  return out;
}

/**
 * Compiling a user tool: esbuild bundles the TypeScript module into one CommonJS
 * script. Only zod and Node's built-in modules may be imported (refused otherwise,
 * with a message that says so): a tool is one self-contained file, and a package from
 * wherever the agent happens to run would be code nobody approved. Both stay outside
 * the bundle, renamed to `__tea_mod:<path>`, and powerful globals are renamed to
 * `__tea_g_<name>` (analyse.ts reads those marks; gate.ts supplies their values).
 *
 * CommonJS rather than ES modules: the built `tea` is itself one script compiled by
 * node:vm, which has no dynamic `import()`, so a tool runs as a function compiled with
 * `vm.compileFunction` whose `require` hands out Tea's own zod (the same instance Tea
 * checks arguments and builds JSON Schema with) and the built-ins its class allows.
 * esbuild is imported here only, when a tool is created or updated; loading a saved
 * tool reads the bundle saved beside its source and needs no compiler.
 */
import { isBuiltin } from 'node:module';
import type { Message, Plugin } from 'esbuild';
import { GATED_GLOBALS, GLOBAL_PREFIX, MODULE_PREFIX } from './analyse.js';

/** The largest source a tool may have (UTF-8 bytes). */
export const MAX_SOURCE_BYTES = 64 * 1024;
/** The largest bundle (the source with esbuild's helpers). */
export const MAX_BUNDLE_BYTES = 256 * 1024;

/** A tool that cannot be saved: the message says why and what to fix (model-readable). */
export class CheckError extends Error {
  readonly hint: string | undefined;
  constructor(message: string, hint?: string) {
    super(message);
    this.name = 'CheckError';
    this.hint = hint;
  }
}

/** Free uses of these names are renamed; `globalThis.fetch` and `global.fetch` too. */
function defines(): Record<string, string> {
  const out: Record<string, string> = {
    globalThis: `${GLOBAL_PREFIX}global`,
    global: `${GLOBAL_PREFIX}global`,
  };
  for (const name of GATED_GLOBALS) {
    const mark = `${GLOBAL_PREFIX}${name}`;
    out[name] = mark;
    out[`globalThis.${name}`] = mark;
    out[`global.${name}`] = mark;
  }
  return out;
}

const ONLY_THESE =
  "a tool may import only zod and Node's built-in modules (node:fs, node:path, …); put anything else into the module itself";

const resolver: Plugin = {
  name: 'tea-user-tool',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      if (args.kind === 'dynamic-import')
        return {
          errors: [
            { text: `import("${args.path}") is not allowed in a tool: import modules statically at the top` },
          ],
        };
      if (args.path === 'zod' || args.path === 'zod/v4')
        return { path: `${MODULE_PREFIX}zod`, external: true };
      if (isBuiltin(args.path)) {
        const bare = args.path.replace(/^node:/, '');
        if (bare === 'vm')
          return { errors: [{ text: 'node:vm is not allowed in a tool: it runs code built from strings' }] };
        return { path: `${MODULE_PREFIX}node:${bare}`, external: true };
      }
      return { errors: [{ text: `cannot import "${args.path}": ${ONLY_THESE}` }] };
    });
  },
};

/** esbuild's messages as `file:line:column: text` with the line shown (at most five). */
export function formatMessages(messages: readonly Message[]): string {
  const shown = messages.slice(0, 5).map((m) => {
    const at = m.location;
    if (!at) return m.text;
    return `${at.file}:${at.line}:${at.column + 1}: ${m.text}\n  ${at.line} | ${at.lineText}`;
  });
  if (messages.length > 5) shown.push(`… and ${messages.length - 5} more`);
  return shown.join('\n');
}

function sizeOf(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The tool's module bundled for loading; throws a `CheckError` with esbuild's message when it does not compile. */
export async function compileTool(name: string, source: string): Promise<string> {
  if (sizeOf(source) > MAX_SOURCE_BYTES)
    throw new CheckError(
      `the code is ${sizeOf(source)} bytes; a tool may have at most ${MAX_SOURCE_BYTES}`,
      'keep a tool small: one job, no bundled libraries',
    );
  const { build } = await import('esbuild');
  let code: string;
  try {
    const result = await build({
      stdin: { contents: source, loader: 'ts', sourcefile: `${name}.ts` },
      bundle: true,
      write: false,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      legalComments: 'none',
      // Folds constant expressions ('node:' + 'child_process'), so the check sees them whole.
      minifySyntax: true,
      tsconfigRaw: {},
      define: defines(),
      plugins: [resolver],
      logLevel: 'silent',
    });
    code = result.outputFiles[0]!.text;
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    if (!errors || errors.length === 0)
      throw new CheckError(`it does not compile: ${(error as Error).message}`);
    throw new CheckError(
      `it does not compile:\n${formatMessages(errors)}`,
      'fix the code at the line shown and send it again',
    );
  }
  if (sizeOf(code) > MAX_BUNDLE_BYTES)
    throw new CheckError(
      `the compiled tool is ${sizeOf(code)} bytes; at most ${MAX_BUNDLE_BYTES} are allowed`,
    );
  return code;
}

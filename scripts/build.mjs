// Bundles the CLI into dist/tea.cjs with esbuild: one CommonJS file that bin/tea.js
// runs from a V8 code cache (bin/code-cache.js), so `tea` skips parsing and compiling
// it on every start. Code a command does not use stays in lazily initialised module
// wrappers and costs only its bytes. The library entry (dist/lib.js) stays ES modules.
// Type checking is separate (`npm run typecheck`). The bundle is built beside dist/
// and swapped in, so a `tea` started during a rebuild never finds dist/ half-written.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { build } from 'esbuild';
import { buildWeb } from './build-web.mjs';

const root = new URL('..', import.meta.url).pathname;
const tmp = `${root}dist.tmp-${process.pid}`;
const old = `${root}dist.old-${process.pid}`;

// commander loads node:child_process (and with it sockets, dgram…: ~3 ms) as it
// starts, for executable subcommands, which tea does not have. Here it is loaded on
// the first spawn instead. Should commander's source change, the build stops.
const commanderSpawnsLazily = {
  name: 'commander-spawns-lazily',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const eager = "const childProcess = require('node:child_process');";
      const source = readFileSync(args.path, 'utf8');
      if (source.split(eager).length !== 2) {
        throw new Error(`${args.path}: expected one "${eager}" (update the commander-spawns-lazily plugin)`);
      }
      const lazy =
        "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
      return { contents: source.replace(eager, lazy), loader: 'js' };
    });
  },
};

// The OTLP exporter (src/runtime/trace-otlp.ts and the OpenTelemetry SDK under it, ~300 KB)
// is a file of its own, dist/otlp.cjs, required only when an OTLP endpoint is set: in the
// bundle it would slow every start (bytes cost), and from node_modules it loads 2-3x slower.
const otlpApart = {
  name: 'otlp-apart',
  setup(b) {
    b.onResolve({ filter: /[\\/]trace-otlp\.js$/ }, () => ({ path: './otlp.cjs', external: true }));
  },
};

// The terminal UI's libraries (pi-tui with marked, highlight.js with its languages: ~260 KB)
// are files of their own, dist/tui-lib.cjs and dist/tui-highlight.cjs, loaded only when the
// full-screen UI runs: in the bundle their bytes would slow every `tea -p` start. pi-tui is
// needed for the first frame, so it runs from a V8 code cache of its own, like the bundle
// (bin/code-cache.js; compiling it afresh costs ~50 ms); highlight.js loads after that frame.
const tuiApart = {
  name: 'tui-apart',
  setup(b) {
    b.onResolve({ filter: /^@mariozechner\/pi-tui$/ }, () => ({ path: 'tui-lib', namespace: 'tui-apart' }));
    b.onLoad({ filter: /.*/, namespace: 'tui-apart' }, () => ({
      contents:
        "const path = require('node:path');\n" +
        "module.exports = require(path.join(__dirname, '..', 'bin', 'code-cache.js')).load(path.join(__dirname, 'tui-lib.cjs'), 'tui-lib');\n",
      loader: 'js',
    }));
    b.onResolve({ filter: /^\.\/highlight\.js$/ }, (args) =>
      /[\\/]cli[\\/]tui$/.test(args.resolveDir) ? { path: './tui-highlight.cjs', external: true } : undefined,
    );
  },
};

// The built-in tools' catalogue (src/tools/builtin/catalogue-data.ts), made from their
// code, so the bundle never offers specs its tools no longer have.
execFileSync(process.execPath, ['--import', 'tsx', 'scripts/tool-catalogue.ts'], {
  cwd: root,
  stdio: 'inherit',
});

// The config cache (src/config/read-cache.ts) trusts what this build validated before:
// its key includes a hash of the config code and the version, so another build validates afresh.
const configBuild = createHash('sha256');
for (const name of readdirSync(`${root}src/config`).sort()) {
  configBuild.update(name).update(readFileSync(`${root}src/config/${name}`));
}
configBuild.update(JSON.parse(readFileSync(`${root}package.json`, 'utf8')).version);
const configBuildId = configBuild.digest('hex').slice(0, 32);

// The first line of the bundle: its build id (a hash of the content), the code cache's key.
const BUILD_ID = '//tea-build:0000000000000000';
// The bundle is one function expression, compiled by bin/code-cache.js as it is (no
// wrapper to add, so no 1.7 MB copy of it) and called with what Node gives a module.
const WRAPPER = '(function (exports, require, module, __filename, __dirname) {';

await build({
  entryPoints: { tea: 'src/cli/main.ts' },
  absWorkingDir: root,
  outdir: tmp,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  keepNames: false,
  sourcemap: 'linked',
  // A package that finds its platform binary relative to itself, one that reads its
  // font files through package imports, the addon finder better-sqlite3 would use, and
  // the shell parser (1.5 MB of GopherJS, imported only when a shell command is
  // checked): all loaded from node_modules. better-sqlite3's JavaScript is bundled (a
  // dozen small files less to resolve and load when `tea` starts); its native addon
  // stays in node_modules and is located by src/store/sqlite-addon.ts. esbuild (it runs its
  // own binary) loads workflow modules written in TypeScript, only when one is run. zod/v4
  // (zod's whole classic API, for role output schemas) loads only when a role needs it.
  external: ['bindings', '@vscode/ripgrep', 'pdfkit', 'mvdan-sh', 'zod/v4', 'esbuild'],
  // import() becomes require(): a script compiled by node:vm has no dynamic import.
  supported: { 'dynamic-import': false },
  banner: { js: `${BUILD_ID}\n${WRAPPER}` },
  footer: { js: '})' },
  // import.meta.url: the bundle's own file URL (scripts/import-meta-url.js).
  inject: [`${root}scripts/import-meta-url.js`],
  define: {
    'import.meta.url': 'import_meta_url',
    __TEA_CONFIG_BUILD__: JSON.stringify(configBuildId),
  },
  // yaml's Node entry is CommonJS (bundled as one opaque module body); its ESM build is
  // the same code as ES modules, which esbuild hoists and trims: ~7 ms off reading a config.
  alias: { yaml: `${root}node_modules/yaml/browser/index.js` },
  plugins: [commanderSpawnsLazily, otlpApart, tuiApart],
  logLevel: 'warning',
});

// dist/otlp.cjs: required by the bundle (createRequire of dist/tea.cjs) when an endpoint is set.
await build({
  entryPoints: { otlp: 'src/runtime/trace-otlp.ts' },
  absWorkingDir: root,
  outdir: tmp,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  logLevel: 'warning',
});

// dist/tui-lib.cjs (in the bundle's form: build id, one function expression, ASCII, for
// bin/code-cache.js) and dist/tui-highlight.cjs (plain CommonJS).
const tuiBuild = {
  absWorkingDir: root,
  outdir: tmp,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  // koffi: pi-tui's Windows console helper, required only on Windows (and optional).
  external: ['koffi'],
  inject: [`${root}scripts/import-meta-url.js`],
  define: { 'import.meta.url': 'import_meta_url' },
  logLevel: 'warning',
};
await build({
  ...tuiBuild,
  entryPoints: { 'tui-lib': 'src/cli/tui/lib-entry.ts' },
  banner: { js: `${BUILD_ID}\n${WRAPPER}` },
  footer: { js: '})' },
});
await build({
  ...tuiBuild,
  entryPoints: { 'tui-highlight': 'src/cli/tui/highlight.ts' },
  sourcemap: 'linked',
});
// dist/first-frame.cjs: the terminal UI's first frame, drawn by bin/tea.js before anything
// else loads (src/cli/tui/first-frame.ts; no dependencies, a few KB).
await build({ ...tuiBuild, minify: false, entryPoints: { 'first-frame': 'src/cli/tui/first-frame.ts' } });

/**
 * The bundle in ASCII, so bin/code-cache.js reads it as Latin-1 (no UTF-8 decoding, and
 * a one-byte string for V8). esbuild escapes strings and names but leaves regular
 * expression literals as written (the memory code's CJK patterns): their characters
 * become \\u escapes, which match the same in a pattern with or without the u flag
 * (a character escaped by a backslash loses the backslash).
 */
function asciiOnly(code) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: backslashes, then a character past ASCII
  return code.replace(/(\\*)([^\x00-\x7f])/g, (_, slashes, ch) => {
    const escaped = `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    return (slashes.length % 2 === 1 ? slashes.slice(1) : slashes) + escaped;
  });
}

// The build id: same length as the placeholder, so the source map still lines up.
const bundle = `${tmp}/tea.cjs`;
const code = asciiOnly(readFileSync(bundle, 'utf8'));
if (!code.startsWith(`${BUILD_ID}\n${WRAPPER}`))
  throw new Error(`${bundle}: expected the build id and wrapper first`);
new Script(code, { filename: bundle }); // still parses
const id = createHash('sha256').update(code).digest('hex').slice(0, 16);
writeFileSync(bundle, `//tea-build:${id}${code.slice(BUILD_ID.length)}`);

const tuiLib = `${tmp}/tui-lib.cjs`;
const tuiCode = asciiOnly(readFileSync(tuiLib, 'utf8'));
new Script(tuiCode, { filename: tuiLib });
const tuiId = createHash('sha256').update(tuiCode).digest('hex').slice(0, 16);
writeFileSync(tuiLib, `//tea-build:${tuiId}${tuiCode.slice(BUILD_ID.length)}`);

// The library entry (package.json exports: `import { createRuntime } from 'tea-agent'`):
// ES modules, its lazily loaded parts in chunks.
await build({
  entryPoints: { lib: 'src/runtime/index.ts' },
  absWorkingDir: root,
  outdir: tmp,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  external: ['bindings', '@vscode/ripgrep', 'pdfkit', 'mvdan-sh', 'zod/v4', 'esbuild'],
  // Bundled CommonJS dependencies may call require().
  banner: {
    js: "import { createRequire as __teaCreateRequire } from 'node:module'; const require = __teaCreateRequire(import.meta.url);",
  },
  define: { __TEA_CONFIG_BUILD__: JSON.stringify(configBuildId) },
  alias: { yaml: `${root}node_modules/yaml/browser/index.js` },
  logLevel: 'warning',
});

// The built-in workflows (review, fix, test, refactor, feature, docs), as YAML files users copy
// and edit: src/multi/workflow/catalog.ts finds them in dist/workflows beside the bundle.
cpSync(`${root}src/multi/workflow/flows`, `${tmp}/workflows`, { recursive: true });

// The web UI that `tea serve` serves, built into the same temporary dist.
await buildWeb(`${tmp}/web`);

try {
  renameSync(`${root}dist`, old);
} catch {
  // no previous build
}
renameSync(tmp, `${root}dist`);
rmSync(old, { recursive: true, force: true });

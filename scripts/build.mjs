// Bundles the CLI into dist/ with esbuild: one small entry plus lazily loaded
// chunks, so `tea` starts fast (fewer files to resolve and parse). Type checking
// is separate (`npm run typecheck`). The bundle is built beside dist/ and swapped
// in, so a `tea` started during a rebuild never finds dist/ half-written.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
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

// The config cache (src/config/read-cache.ts) trusts what this build validated before:
// its key includes a hash of the config code and the version, so another build validates afresh.
const configBuild = createHash('sha256');
for (const name of readdirSync(`${root}src/config`).sort()) {
  configBuild.update(name).update(readFileSync(`${root}src/config/${name}`));
}
configBuild.update(JSON.parse(readFileSync(`${root}package.json`, 'utf8')).version);

await build({
  // main: the tea command; lib: the library entry (package.json exports).
  entryPoints: { main: 'src/cli/main.ts', lib: 'src/runtime/index.ts' },
  absWorkingDir: root,
  outdir: tmp,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  keepNames: false,
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  // A package that finds its platform binary relative to itself, one that reads its
  // font files through package imports, the addon finder better-sqlite3 would use, and
  // the shell parser (1.5 MB of GopherJS, imported only when a shell command is
  // checked): all loaded from node_modules. better-sqlite3's JavaScript is bundled (a
  // dozen small files less to resolve and load when `tea` starts); its native addon
  // stays in node_modules and is located by src/store/sqlite-addon.ts.
  external: ['bindings', '@vscode/ripgrep', 'pdfkit', 'mvdan-sh'],
  // Bundled CommonJS dependencies may call require().
  banner: {
    js: "import { createRequire as __teaCreateRequire } from 'node:module'; const require = __teaCreateRequire(import.meta.url);",
  },
  // yaml's Node entry is CommonJS (bundled as one opaque module body); its ESM build is
  // the same code as ES modules, which esbuild hoists and trims: ~7 ms off reading a config.
  define: { __TEA_CONFIG_BUILD__: JSON.stringify(configBuild.digest('hex').slice(0, 32)) },
  alias: { yaml: `${root}node_modules/yaml/browser/index.js` },
  plugins: [commanderSpawnsLazily],
  logLevel: 'warning',
});

// The web UI that `tea serve` serves, built into the same temporary dist.
await buildWeb(`${tmp}/web`);

try {
  renameSync(`${root}dist`, old);
} catch {
  // no previous build
}
renameSync(tmp, `${root}dist`);
rmSync(old, { recursive: true, force: true });

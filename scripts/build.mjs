// Bundles the CLI into dist/ with esbuild: one small entry plus lazily loaded
// chunks, so `tea` starts fast (fewer files to resolve and parse). Type checking
// is separate (`npm run typecheck`). The bundle is built beside dist/ and swapped
// in, so a `tea` started during a rebuild never finds dist/ half-written.
import { renameSync, rmSync } from 'node:fs';
import { build } from 'esbuild';
import { buildWeb } from './build-web.mjs';

const root = new URL('..', import.meta.url).pathname;
const tmp = `${root}dist.tmp-${process.pid}`;
const old = `${root}dist.old-${process.pid}`;

await build({
  entryPoints: { main: 'src/cli/main.ts' },
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
  // Native addon, a package that finds its platform binary relative to itself, one
  // that reads its font files through package imports, and the shell parser (1.5 MB of
  // GopherJS, imported only when a shell command is checked): all loaded from node_modules.
  external: ['better-sqlite3', '@vscode/ripgrep', 'pdfkit', 'mvdan-sh'],
  // Bundled CommonJS dependencies may call require().
  banner: {
    js: "import { createRequire as __teaCreateRequire } from 'node:module'; const require = __teaCreateRequire(import.meta.url);",
  },
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

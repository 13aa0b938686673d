// Bundles the CLI into dist/ with esbuild: one small entry plus lazily loaded
// chunks, so `tea` starts fast (fewer files to resolve and parse). Type checking
// is separate (`npm run typecheck`).
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  // Native addon: must be loaded from node_modules.
  external: ['better-sqlite3'],
  // Bundled CommonJS dependencies may call require().
  banner: {
    js: "import { createRequire as __teaCreateRequire } from 'node:module'; const require = __teaCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

// Bundles the web UI (web/src/main.ts) into one minified app.js, the stylesheets
// (web/styles.css and its imports) into one styles.css, and copies index.html. `outDir` defaults to dist/web; scripts/build.mjs
// passes its temporary dist so the UI is part of the same atomic swap.
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;

/** Builds the web UI into `outDir`; returns the bundle size in bytes. */
export async function buildWeb(outDir = path.join(root, 'dist', 'web')) {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [path.join(root, 'web', 'src', 'main.ts')],
    outfile: path.join(outDir, 'app.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    minify: true,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
  // styles.css @imports the files under web/styles/: bundled into one file.
  await build({
    entryPoints: [path.join(root, 'web', 'styles.css')],
    outfile: path.join(outDir, 'styles.css'),
    bundle: true,
    minify: true,
    logLevel: 'warning',
  });
  copyFileSync(path.join(root, 'web', 'index.html'), path.join(outDir, 'index.html'));
  const size = statSync(path.join(outDir, 'app.js')).size;
  console.log(`web UI: app.js ${(size / 1024).toFixed(1)} KB (minified)`);
  return size;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildWeb();

// Type declarations of the library entry (`import { createRuntime } from 'tea-agent'`)
// into dist/types, for the package's `types`. Run before packing (npm's prepack);
// not part of `npm run build`, which the tests and `tea` need fast.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist/types`, { recursive: true, force: true });
const typescript = path.dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
const tsc = path.join(typescript, 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', `${root}tsconfig.lib.json`], { cwd: root, stdio: 'inherit' });

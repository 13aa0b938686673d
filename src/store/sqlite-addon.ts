/**
 * Where better-sqlite3's native addon is. The bundle in dist/ carries
 * better-sqlite3's JavaScript (a dozen small files fewer to resolve and load when
 * `tea` starts), so the addon is located here rather than by the `bindings`
 * search better-sqlite3 runs from its own location (which is slow, and from
 * inside the bundle would look in the wrong place): build/Release, where its
 * install script puts it, else that same search rooted at the package.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packageFile } from './package-file.js';

let addon: string | object | undefined;

/** The `nativeBinding` option for `new Database(…)`: the addon's path, or the loaded addon. */
export function sqliteAddon(): string | object {
  if (addon !== undefined) return addon;
  const built = packageFile('better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (built !== undefined) {
    addon = built;
  } else {
    const require = createRequire(import.meta.url);
    const root = join(dirname(require.resolve('better-sqlite3')), '..');
    const bindings = createRequire(join(root, 'package.json'))('bindings') as (opts: {
      bindings: string;
      module_root: string;
    }) => object;
    addon = bindings({ bindings: 'better_sqlite3.node', module_root: root });
  }
  return addon;
}

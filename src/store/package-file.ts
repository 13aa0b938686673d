/**
 * Native files shipped inside installed packages (SQLite's addon, the sqlite-vec
 * extension), found by looking in the node_modules folders Node would search
 * from here. Module resolution (`require.resolve`, `import.meta.resolve`) reads
 * and interprets package.json files on its first use, ~2 ms per lookup when a
 * command starts; a few existence checks are enough to find a file by its path.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** `<node_modules>/<pkg>/<file>` from the nearest node_modules that has it, or undefined. */
export function packageFile(pkg: string, ...file: string[]): string | undefined {
  const dirs = createRequire(import.meta.url).resolve.paths(pkg) ?? [];
  for (const dir of dirs) {
    const candidate = join(dir, pkg, ...file);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

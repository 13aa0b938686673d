import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Finds tea-agent's package.json above this file (works from src/ and from the dist/ bundle). */
function readVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'tea-agent' && pkg.version) return pkg.version;
    } catch {
      // not here; look one level up
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}

export const VERSION: string = readVersion();

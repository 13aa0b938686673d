import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LAYOUT_MARKERS } from '../../src/evolve/self/detect.js';

/** Gives `repo` Tea Agent's layout (the marker files own-repo detection looks for). */
export function teaLayout(repo: string): void {
  for (const marker of LAYOUT_MARKERS) {
    mkdirSync(path.dirname(path.join(repo, marker)), { recursive: true });
    writeFileSync(path.join(repo, marker), '// layout marker\n');
  }
}

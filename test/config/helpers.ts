/** Temp dirs for config tests: a data home and a project (bounded by a `.git`). */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordTrustDecision } from '../../src/config/trust-store.js';

export interface Dirs {
  root: string;
  home: string;
  project: string;
  /** Writes `$home/config.yaml`; returns its path. */
  writeUser(yaml: string): string;
  /** Writes `$project/.tea/config.yaml`; returns its path. */
  writeProject(yaml: string): string;
  /** Trusts the project file as it is now (what `tea trust` records). */
  trustProject(): void;
  cleanup(): void;
}

export function makeDirs(): Dirs {
  const root = mkdtempSync(join(tmpdir(), 'tea-config-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home, { recursive: true });
  // A `.git` marks the project root, so the walk up never leaves the temp dir.
  mkdirSync(join(project, '.git'), { recursive: true });
  const write = (file: string, yaml: string): string => {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, yaml);
    return file;
  };
  return {
    root,
    home,
    project,
    writeUser: (yaml) => write(join(home, 'config.yaml'), yaml),
    writeProject: (yaml) => write(join(project, '.tea', 'config.yaml'), yaml),
    trustProject: () => {
      const file = join(project, '.tea', 'config.yaml');
      const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
      recordTrustDecision(home, file, sha256, 'trusted');
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

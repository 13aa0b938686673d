/**
 * The scaffolding of a test of the built `tea acp`: the scripted model and a temp
 * TEA_HOME (useScriptedCli), a quiet config.yaml and the workspace before each test,
 * and every peer it started closed after it.
 */
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { useScriptedCli } from '../support/cli.js';
import { type AcpPeer, startPeer } from './peer.js';

export type ScriptedCli = ReturnType<typeof useScriptedCli>;

export interface ConfigOptions {
  /** YAML appended after the quiet lines (its own top-level keys). */
  extra?: string;
  /** Automatic titles on: one more model call after a session's first turn. */
  autoTitle?: boolean;
}

/**
 * Background model calls (titles, memory jobs) off and no retries, so only turns reach
 * the model; then `extra`.
 */
export function quietConfig({ extra = '', autoTitle = false }: ConfigOptions = {}): string {
  const base = `agent:\n  auto_title: ${autoTitle}\nmemory:\n  extract: false\n  tune: false\nllm:\n  max_retries: 0\n`;
  return extra === '' ? base : `${base}${extra.endsWith('\n') ? extra : `${extra}\n`}`;
}

export interface AcpTest {
  readonly t: ScriptedCli;
  /** The workspace (t.ctx.work with links resolved), new for each test. */
  readonly work: string;
  /** Spawns `tea acp` in the workspace with `args`; closed after the test. */
  start(args?: string[]): AcpPeer;
  /** Rewrites config.yaml as quietConfig(opts) (without the extra lines useAcp was given). */
  writeConfig(opts?: ConfigOptions): void;
}

/**
 * Registers the hooks of an ACP test file. `extra` gives the file's own config lines
 * (a function: it may need the model server's URL); `autoTitle` keeps titles on.
 */
export function useAcp(opts: { extra?: (t: ScriptedCli) => string; autoTitle?: boolean } = {}): AcpTest {
  const t = useScriptedCli();
  let peers: AcpPeer[] = [];
  let work = '';
  const writeConfig = (o: ConfigOptions = {}): void => {
    writeFileSync(path.join(t.ctx.home, 'config.yaml'), quietConfig(o));
  };

  beforeEach(() => {
    writeConfig({ extra: opts.extra?.(t) ?? '', autoTitle: opts.autoTitle ?? false });
    work = realpathSync(t.ctx.work);
  });

  afterEach(async () => {
    for (const p of peers) await p.close();
    peers = [];
  });

  return {
    t,
    get work() {
      return work;
    },
    start(args: string[] = []) {
      const p = startPeer({ env: t.ctx.env, cwd: work, args });
      peers.push(p);
      return p;
    },
    writeConfig,
  };
}

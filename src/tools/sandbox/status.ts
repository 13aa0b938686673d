/**
 * What the sandbox setting amounts to on this machine, for `tea config` and `tea config
 * check`: `auto (bubblewrap 0.8.0 works)`, `auto (bubblewrap not found: commands run
 * unsandboxed)`, `on (…: shell commands are refused)`, `off (…)`.
 */
import { execFile } from 'node:child_process';
import type { Sandbox, SandboxMode } from './sandbox.js';

export interface SandboxStatus {
  mode: SandboxMode;
  /** Shell commands run inside bubblewrap. */
  sandboxed: boolean;
  /** The mode and what it means here, in one line. */
  summary: string;
}

/** `0.8.0` from `bwrap --version` (`bubblewrap 0.8.0`), or undefined. */
function bwrapVersion(bwrap: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(bwrap, ['--version'], { timeout: 5_000, env: {} }, (error, stdout) => {
      resolve(error ? undefined : /bubblewrap\s+(\S+)/.exec(stdout)?.[1]);
    });
  });
}

/** Probes bubblewrap (unless the mode is `off`) and says what the mode means here. */
export async function sandboxStatus(sandbox: Sandbox): Promise<SandboxStatus> {
  const mode = sandbox.mode;
  if (mode === 'off') {
    return { mode, sandboxed: false, summary: 'off (shell commands run unsandboxed)' };
  }
  const probe = await sandbox.probe();
  if (probe.ok) {
    const version = await bwrapVersion(probe.bwrap);
    const name = version ? `bubblewrap ${version}` : `bubblewrap (${probe.bwrap})`;
    return { mode, sandboxed: true, summary: `${mode} (${name} works)` };
  }
  const why = probe.missing ? 'bubblewrap not found' : probe.reason;
  const effect = mode === 'on' ? 'shell commands are refused' : 'commands run unsandboxed';
  return { mode, sandboxed: false, summary: `${mode} (${why}: ${effect})` };
}

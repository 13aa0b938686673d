/**
 * The runtime as the `tea` command builds it: its flags become runtime options,
 * and its warnings go to stderr. Errors the runtime reports (RuntimeError) are
 * turned into exit codes by main.ts.
 */

import type { Session } from '../agent/index.js';
import { trustWarning } from '../config/load.js';
import { RuntimeError } from '../runtime/errors.js';
import { describeRules } from '../runtime/rules.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import type { SandboxMode } from '../tools/sandbox/sandbox.js';
import { CliError, EXIT, UsageError } from './exit.js';
import { VERSION } from './version.js';

export type { Runtime } from '../runtime/runtime.js';

export interface CliRuntimeFlags {
  cwd?: string;
  profile?: string;
  model?: string;
  maxTurns?: number;
  permissionMode?: string;
  yolo?: boolean;
  allow?: string[];
  addDir?: string[];
  /** 'deny' when nobody can answer approvals and questions (tea -p). */
  approvals?: 'ask' | 'deny';
  /** Name new sessions on the cheap model (interactive; one-shot runs keep the prompt as title). */
  titles?: boolean;
  sandbox?: SandboxMode;
  /** The user was just told about the project config's trust: leave out the warning that repeats it. */
  projectTrustShown?: boolean;
  /** Where warnings go instead of stderr (the terminal UI shows them in its transcript). */
  warn?: (message: string) => void;
  /**
   * Whether this run may go on with no model configured: its prompt is one a rule
   * answers, or it is interactive (rules work; other prompts are told how to configure
   * one). Default: a model is required.
   */
  modelOptional?: (rt: Runtime) => boolean;
}

/** Builds the runtime from the command line's flags. */
export async function cliRuntime(flags: CliRuntimeFlags): Promise<Runtime> {
  let told: string | undefined;
  const rt = await createRuntime({
    ...(flags.cwd !== undefined ? { cwd: flags.cwd } : {}),
    ...(flags.profile ? { profile: flags.profile } : {}),
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.maxTurns !== undefined ? { maxTurns: flags.maxTurns } : {}),
    ...(flags.yolo
      ? { permissionMode: 'yolo' }
      : flags.permissionMode
        ? { permissionMode: flags.permissionMode }
        : {}),
    ...(flags.allow ? { allow: flags.allow } : {}),
    ...(flags.addDir ? { addDir: flags.addDir } : {}),
    ...(flags.approvals ? { approvals: flags.approvals } : {}),
    ...(flags.titles !== undefined ? { titles: flags.titles } : {}),
    ...(flags.sandbox ? { sandbox: flags.sandbox } : {}),
    clientInfo: { name: 'tea-agent', version: VERSION },
    warn: (message) => {
      if (message === told) return;
      if (flags.warn) flags.warn(message);
      else process.stderr.write(`tea: warning: ${message}\n`);
    },
    onConfig: (config) => {
      if (flags.projectTrustShown) told = trustWarning(config.project);
    },
  });
  // tea runs a model: say now that there is none, before a session is opened.
  try {
    if (!flags.modelOptional?.(rt)) rt.models.requireModel();
  } catch (e) {
    await rt.close();
    // With no model, the rules still work: the message lists them.
    if (e instanceof RuntimeError && e.code === 'no_model')
      throw new RuntimeError('no_model', `${e.message}\n\n${describeRules(rt.rules)}`);
    throw e;
  }
  return rt;
}

export interface PickFlags {
  resume?: string;
  continue?: boolean;
  approvals?: 'ask' | 'deny';
  /** `--work-mode`: the work mode to switch the session to. */
  workMode?: string;
  /** Given on the command line: it wins over the work mode's permission mode. */
  permissionMode?: string;
  yolo?: boolean;
}

/**
 * The session for this run (--resume, --continue, or a new one), switched to `--work-mode`
 * when given; an explicit `--permission-mode`/`--yolo` then wins over the mode's own.
 */
export function pickSession(rt: Runtime, flags: PickFlags): Session {
  // Checked before a session is opened: a typo leaves no empty session behind.
  if (flags.workMode !== undefined && !rt.modes.some((m) => m.name === flags.workMode)) {
    const names = rt.modes.map((m) => m.name).join(', ');
    throw new UsageError(`--work-mode: unknown work mode "${flags.workMode}": use one of ${names}`);
  }
  const session = openSession(rt, flags);
  if (flags.workMode !== undefined) session.setWorkMode(flags.workMode);
  if (flags.yolo || flags.permissionMode) session.setPermissionMode(rt.permissionMode);
  return session;
}

function openSession(rt: Runtime, flags: PickFlags): Session {
  const approvals = flags.approvals ?? 'ask';
  const profile = rt.models.active;
  if (flags.resume) return rt.sessions.open(flags.resume, { profile, approvals });
  if (flags.continue) {
    const latest = rt.sessions.latest({ cwd: rt.cwd });
    if (!latest)
      throw new CliError(`no session to continue in ${rt.cwd}; start one with tea -p "…"`, EXIT.USAGE);
    return rt.sessions.open(latest.id, { profile, approvals });
  }
  return rt.sessions.create({ profile, approvals });
}

/**
 * The shell sandbox: programs the agent starts (bash, bg_start, which, opted-in MCP
 * stdio servers) run inside bubblewrap on Linux when it is there and works.
 *
 * Modes: `auto` (the default of every face) uses bwrap when it works and otherwise
 * says so once and runs programs as they are; `on` refuses to run them without it;
 * `off` never sandboxes. Whether bwrap works is probed once, on first use.
 */
import { accessSync, constants, existsSync, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';
import { type PermissionView, ToolError } from '../types.js';
import { bwrapArgs } from './bwrap.js';
import { type HiddenPath, hiddenPaths } from './hidden.js';

export type SandboxMode = 'auto' | 'on' | 'off';

export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'on', 'off'];

/** The pseudo tool name permission rules use to let commands reach the network. */
export const NETWORK_RULE_TOOL = 'network';

export interface SandboxSettings {
  mode: SandboxMode;
  /** Every sandboxed command may use the network (default false: see `networkFor`). */
  network?: boolean;
  /** Tea's data home (`TEA_HOME`): hidden, with its config, database and tokens. */
  teaHome?: string;
  /** Home directories whose credential files are hidden (default: the user's and `$HOME`). */
  homes?: readonly string[];
  /** More paths to hide. */
  hide?: readonly string[];
  /** Where bwrap is looked for (default: `$PATH` at first use). */
  pathEnv?: string;
  /** How the one notice of `auto` without bwrap is given (default: a line on stderr). */
  warn?: (message: string) => void;
}

/** A program to start, and where. */
export interface LaunchRequest {
  command: string;
  args: readonly string[];
  cwd: string;
  /** Directories it may write besides `cwd` (the added roots). */
  writable?: readonly string[];
  env: NodeJS.ProcessEnv;
  network: boolean;
  /** Detach from the controlling terminal (programs not started with `detached`). */
  newSession?: boolean;
}

/** How to start it: the file and arguments to spawn, with the environment. */
export interface Launch {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Null when the program runs unsandboxed. */
  sandbox: { network: boolean; writable: string[]; readOnly: string[]; hidden: HiddenPath[] } | null;
}

/** Whether bwrap works here: its path, or why not. */
export type SandboxProbe =
  | { ok: true; bwrap: string }
  /** `missing`: there is no bwrap on PATH (rather than one that does not work). */
  | { ok: false; reason: string; missing?: boolean };

type Probe = SandboxProbe;

/** The subset of a permission policy the sandbox consults (structural, see ToolContext.permissions). */
/** What the sandbox asks of the permission policy: whether a command may use the network. */
export type NetworkPolicy = PermissionView;

const PROBE_TIMEOUT_MS = 5_000;

function findOnPath(name: string, pathEnv: string | undefined): string | undefined {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

function realDir(p: string): string | undefined {
  try {
    const real = realpathSync(p);
    return statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The parts of each writable root's git repository that make git run commands:
 * `.git/hooks` and `.git/config` (core.fsmonitor, core.hooksPath, aliases, filters).
 * They stay read-only inside, or a sandboxed command could plant a hook that Tea's
 * git tools or the user later run outside the sandbox. A missing hooks directory is
 * created (empty, as `git init` makes it) so it can be mounted.
 */
function gitControlPaths(roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const root of roots) {
    const git = join(root, '.git');
    try {
      if (!lstatSync(git).isDirectory()) continue;
    } catch {
      continue;
    }
    const hooks = join(git, 'hooks');
    try {
      mkdirSync(hooks, { recursive: true });
    } catch {
      // cannot create it: then it cannot be planted from inside either (same permissions)
    }
    for (const p of [hooks, join(git, 'config')]) if (existsSync(p)) out.push(p);
  }
  return out;
}

/** The user's home directories: `$HOME` and the password database's (they differ under sudo or in tests). */
function defaultHomes(): string[] {
  const homes = [homedir()];
  try {
    homes.push(userInfo().homedir);
  } catch {
    // no password entry for this uid (some containers)
  }
  return [...new Set(homes)];
}

/** The user's config file in the data home, `~` for the home directory, for hints. */
function userConfigFile(teaHome: string | undefined): string {
  if (!teaHome) return 'your config.yaml';
  const file = join(teaHome, 'config.yaml');
  const home = homedir();
  return home && home !== '/' && file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Runs bwrap once with the flags every sandbox uses; resolves to what went wrong, if anything. */
async function runProbe(bwrap: string, pathEnv: string | undefined): Promise<Probe> {
  // Loaded here: a run that starts no program never needs node:child_process.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const args = bwrapArgs({
      cwd: '/',
      writable: [],
      hidden: [],
      network: false,
      newSession: true,
      command: 'true',
      args: [],
    });
    const child = spawn(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: pathEnv ?? '' } });
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: `${bwrap} could not start (${error.message})` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ ok: true, bwrap });
      else {
        const why =
          stderr.trim().split('\n').at(-1) || (signal ? `killed by ${signal}` : `exit code ${code}`);
        resolve({ ok: false, reason: `${bwrap} does not work here: ${why}` });
      }
    });
  });
}

/**
 * The private `/tmp` hides what lives there: a program (or its script) started from
 * `/tmp/x/…` would not exist inside. Its top directory under `/tmp` is brought back
 * read-only, so the program runs and can still write nothing there.
 */
export function programHomes(paths: readonly string[], writable: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    if (!isAbsolute(p) || !inside('/tmp', p) || p === '/tmp') continue;
    if (writable.some((root) => inside(root, p)) || !existsSync(p)) continue;
    const top = join('/tmp', p.slice('/tmp/'.length).split('/')[0] ?? '');
    if (top !== '/tmp') out.add(top);
  }
  return [...out];
}

export class Sandbox {
  private probed: Promise<Probe> | undefined;
  private warned = false;

  constructor(readonly settings: SandboxSettings) {}

  /** A sandbox that never sandboxes (library default; faces pass the configured one). */
  static off(): Sandbox {
    return new Sandbox({ mode: 'off' });
  }

  get mode(): SandboxMode {
    return this.settings.mode;
  }

  /** Whether bwrap works here (probed once; `off` never probes). */
  probe(): Promise<Probe> {
    this.probed ??= (async (): Promise<Probe> => {
      if (process.platform !== 'linux') {
        return { ok: false, reason: `the sandbox needs Linux and bubblewrap (this is ${process.platform})` };
      }
      const pathEnv = this.settings.pathEnv ?? process.env.PATH;
      const bwrap = findOnPath('bwrap', pathEnv);
      if (!bwrap) return { ok: false, reason: 'bubblewrap (bwrap) is not on PATH', missing: true };
      return runProbe(bwrap, pathEnv);
    })();
    return this.probed;
  }

  /**
   * May this command use the network? Yes when the config says so (`sandbox: { network:
   * true }`) or the permission policy allows the pseudo tool `network` for it (a rule
   * `{ tool: network, pattern: "npm install*", action: allow }`, `--allow network`, or
   * yolo mode); a `deny` rule for `network` always wins.
   */
  async networkFor(
    policy: NetworkPolicy | undefined,
    subject: string,
    where: { cwd?: string; roots?: readonly string[] } = {},
  ): Promise<boolean> {
    // Judged like a bash rule, command by command: `network:npm install*` lets `npm install`
    // reach the network, not a `curl` chained after it.
    const decision = (
      await policy?.decide({ tool: NETWORK_RULE_TOOL, approval: 'network', subject, shell: true, ...where })
    )?.action;
    if (decision === 'deny') return false;
    return decision === 'allow' || this.settings.network === true;
  }

  /** How to start `req`: inside bwrap, or as it is (mode off, or auto without bwrap). */
  async launch(req: LaunchRequest): Promise<Launch> {
    const plain: Launch = { file: req.command, args: [...req.args], env: req.env, sandbox: null };
    if (this.mode === 'off') return plain;
    const probe = await this.probe();
    if (!probe.ok) {
      if (this.mode === 'on') {
        throw new ToolError(
          `Refusing to run: the sandbox is on, but ${probe.reason}`,
          `install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), or set \`sandbox: auto\` in ${userConfigFile(this.settings.teaHome)} (or pass --sandbox auto) to run unsandboxed when it is missing`,
        );
      }
      this.warnOnce(
        `the shell sandbox is off: ${probe.reason}; commands run unsandboxed (install bubblewrap, or set \`sandbox: off\` to silence this)`,
      );
      return plain;
    }
    const writable = [req.cwd, ...(req.writable ?? [])].flatMap((p) => realDir(p) ?? []);
    const hidden = hiddenPaths({
      homes: this.settings.homes ?? defaultHomes(),
      ...(this.settings.teaHome ? { teaHome: this.settings.teaHome } : {}),
      ...(req.env.XDG_RUNTIME_DIR ? { runtimeDir: req.env.XDG_RUNTIME_DIR } : {}),
      ...(this.settings.hide ? { extra: this.settings.hide } : {}),
    });
    const env = { ...req.env };
    // A TMPDIR the program cannot write would break it; the private /tmp always works.
    if (env.TMPDIR && !['/tmp', ...writable].some((root) => inside(root, env.TMPDIR!))) env.TMPDIR = '/tmp';
    const cwd = realDir(req.cwd) ?? req.cwd;
    const readOnly = [...gitControlPaths(writable), ...programHomes([req.command, ...req.args], writable)];
    const args = bwrapArgs({
      cwd: existsSync(cwd) ? cwd : '/',
      writable,
      readOnly,
      hidden,
      network: req.network,
      newSession: req.newSession === true,
      command: req.command,
      args: req.args,
    });
    return { file: probe.bwrap, args, env, sandbox: { network: req.network, writable, readOnly, hidden } };
  }

  private warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    const warn = this.settings.warn ?? ((m: string) => process.stderr.write(`tea: warning: ${m}\n`));
    warn(message);
  }
}

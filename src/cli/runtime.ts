import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, type Session } from '../agent/index.js';
import { agentSettings, chainOptions } from '../agent/settings.js';
// Direct imports (not the config index) keep the YAML printer out of the start-up path.
import { loadConfig, trustWarning } from '../config/load.js';
import { describeMissingModel } from '../config/missing.js';
import { resolveProfile } from '../config/profile.js';
import type { TeaConfig } from '../config/types.js';
import { TokenCalibrator } from '../context/tokens.js';
import { createModelChain, type ProfileConfig } from '../llm/factory.js';
import type { Provider } from '../llm/types.js';
import { modelJudge } from '../memory/judge.js';
import { MemoryService } from '../memory/service.js';
import { Store } from '../store/index.js';
import { defaultDbPath } from '../store/paths.js';
import { createToolRegistry } from '../tools/builtin/index.js';
import { attachMcp } from '../tools/mcp/index.js';
import { PERMISSION_MODES, type PermissionMode, type PermissionRule } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { SandboxMode } from '../tools/sandbox/sandbox.js';
import { allowRules } from './allow-check.js';
import { CliError, EXIT, UsageError } from './exit.js';
import { embedderFor, workspaceDir } from './open-store.js';
import { shellSetup } from './sandbox-setup.js';
import { existingDir } from './usage.js';
import { VERSION } from './version.js';

export { embedderFor, openStore, workspaceDir } from './open-store.js';

export interface RuntimeOptions {
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
  /** `--sandbox`: overrides the config's `sandbox` mode. */
  sandbox?: SandboxMode;
  /** The user was just told about the project config's trust: leave out the warning that repeats it. */
  projectTrustShown?: boolean;
}

export interface Runtime {
  config: TeaConfig;
  store: Store;
  provider: Provider;
  tools: ToolRegistry;
  /** The one long-term memory service of this process (faces reuse it). */
  memory: MemoryService;
  agent: Agent;
  cwd: string;
  /** The permission rules in force: the config's, then `--allow`'s (other faces build agents with them). */
  permissionRules: PermissionRule[];
  /** Directories file tools may use besides the workspace: the config's and `--add-dir`'s. */
  allowedRoots: string[];
  close(): void;
}

/** The main model profile for this run, with --profile and --model applied. */
export function mainProfile(config: TeaConfig, opts: RuntimeOptions): ProfileConfig {
  const base = opts.profile ? resolveProfile(config, opts.profile) : config.mainModel;
  if (!base)
    throw new CliError(`${describeMissingModel(config)}\n(exit code 3: no model configured)`, EXIT.NO_MODEL);
  return opts.model ? { ...base, model: opts.model } : base;
}

function modeFor(config: TeaConfig, opts: RuntimeOptions): PermissionMode {
  if (opts.yolo) return 'yolo';
  const mode = opts.permissionMode ?? config.permissions.mode;
  if (!PERMISSION_MODES.includes(mode as PermissionMode))
    throw new UsageError(`unknown permission mode ${mode}: expected ${PERMISSION_MODES.join(', ')}`);
  return mode as PermissionMode;
}

/** Config rules first, then --allow rules (the last match wins, so flags win); flags name real tools. */
function rulesFor(config: TeaConfig, opts: RuntimeOptions, tools: ToolRegistry): PermissionRule[] {
  const fromFlags = allowRules(opts.allow ?? [], tools.names(), Object.keys(config.mcpServers));
  return [...config.permissions.rules, ...fromFlags];
}

/** Builds everything a turn needs: config, model chain, store, tools, agent. */
export async function createRuntime(opts: RuntimeOptions): Promise<Runtime> {
  const cwd = workspaceDir(opts.cwd);
  const config = await loadConfig({ cwd });
  const told = opts.projectTrustShown ? trustWarning(config.project) : undefined;
  for (const warning of config.warnings) {
    if (warning !== told) process.stderr.write(`tea: warning: ${warning}\n`);
  }
  // Mistakes on the command line first: they are the user's to fix before anything else.
  const shell = shellSetup(config, opts.sandbox);
  const tools = createToolRegistry({
    ...(config.tools.webSearch ? { webSearch: config.tools.webSearch } : {}),
    envAllow: config.tools.envAllow,
    ...shell,
  });
  const permissionRules = rulesFor(config, opts, tools);
  const permissionMode = modeFor(config, opts);
  const addedRoots = (opts.addDir ?? []).map((d) => existingDir('--add-dir', d));
  const allowedRoots = [...config.permissions.roots, ...addedRoots];
  const main = mainProfile(config, opts);
  const fallbacks = config.fallback.filter((n) => n !== main.name).map((n) => resolveProfile(config, n));
  const provider = createModelChain([main, ...fallbacks], chainOptions(config));
  const calibrationFile = path.join(config.home, 'calibration.json');
  const cheap = config.cheapModel ?? main;
  const cheapProvider = createModelChain([cheap], chainOptions(config, { cheap: true }));
  const store = Store.open(defaultDbPath(config.home), { backup: {} });
  const mcp = await attachMcp(tools, config.mcpServers, {
    home: config.home,
    cwd,
    sandbox: shell.sandbox,
    warn: (m) => process.stderr.write(`tea: warning: ${m}\n`),
    clientInfo: { name: 'tea-agent', version: VERSION },
  });
  const memory = new MemoryService({
    db: store.db,
    embedder: embedderFor(config),
    ...(config.memory.judge ? { judge: modelJudge(cheapProvider) } : {}),
  });
  const settings = agentSettings(config);
  const agent = new Agent({
    ...settings,
    provider,
    tools,
    store,
    cwd,
    maxIterations: opts.maxTurns ?? settings.maxIterations,
    permissionMode,
    permissionRules,
    allowedRoots,
    approvals: opts.approvals ?? 'ask',
    cheapProvider,
    titles: (opts.titles ?? true) && config.agent.autoTitle,
    calibrator: loadCalibration(calibrationFile),
    memory,
  });
  return {
    config,
    store,
    provider,
    tools,
    memory,
    agent,
    cwd,
    permissionRules,
    allowedRoots,
    close: () => {
      saveCalibration(calibrationFile, agent.calibrator);
      // MCP stdio servers also exit when their stdin closes with this process.
      void mcp.close();
      store.close();
    },
  };
}

/** The session for this run: --resume, --continue, or a new one. */
export function pickSession(rt: Runtime, flags: { resume?: string; continue?: boolean }): Session {
  if (flags.resume) return rt.agent.resumeSession(flags.resume);
  if (flags.continue) {
    const latest = rt.store.sessions.latest({ cwd: rt.cwd });
    if (!latest)
      throw new CliError(`no session to continue in ${rt.cwd}; start one with tea -p "…"`, EXIT.USAGE);
    return rt.agent.resumeSession(latest.id);
  }
  return rt.agent.newSession();
}

/** Per-model token calibration carried between runs; a damaged file starts afresh. */
function loadCalibration(file: string): TokenCalibrator {
  try {
    return TokenCalibrator.from(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return new TokenCalibrator();
  }
}

function saveCalibration(file: string, calibrator: TokenCalibrator): void {
  try {
    writeFileSync(file, `${JSON.stringify(calibrator.toJSON())}\n`);
  } catch {
    // best effort: the next run calibrates again
  }
}

/**
 * The one composition root. `createRuntime` reads the config and sets up what
 * every face shares: the model profiles and their providers, the tools under the
 * permission policy, the store, long-term memory and MCP servers. Pieces are
 * built when first used, so a turn loads, opens and connects only what it needs.
 * The CLI, the HTTP server, ACP and library users all start here.
 */
import path from 'node:path';
import { Agent } from '../agent/index.js';
import type { RuleSettings } from '../agent/rules/index.js';
import { settingsFrom } from '../agent/settings.js';
import type { Tracer } from '../agent/trace.js';
// Direct imports (not the config index) keep the YAML printer out of the start-up path.
import { loadConfig } from '../config/load.js';
import type { TeaConfig } from '../config/types.js';
import type { TokenCalibrator } from '../context/tokens.js';
import { detectOwnRepo, SELF_MODE_NOTE } from '../evolve/self/detect.js';
import { registerSelfTools } from '../evolve/self/register.js';
import type { BackgroundUpkeep } from '../evolve/upkeep/schedule.js';
import type { Provider } from '../llm/types.js';
import type { LongTermMemory } from '../memory/api.js';
import type { Delegator } from '../multi/delegate.js';
import { registerDelegationTools } from '../multi/register.js';
import { type BackgroundCheckpoints, checkpointInBackground } from '../store/index.js';
import { BackgroundJobs, type BackgroundJobsView } from '../tools/background-jobs.js';
import type { McpManager } from '../tools/mcp/index.js';
import type { PermissionMode, PermissionRule } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { SandboxMode } from '../tools/sandbox/sandbox.js';
import type { Tool } from '../tools/types.js';
import { registerUserTools } from '../tools/user/register.js';
import { loadCalibration, saveCalibration } from './calibration.js';
import { checkOptions } from './check-options.js';
import { workspaceDir } from './directories.js';
import { runtimeHooks } from './evolve.js';
import type { EvolveService } from './evolve-service.js';
import { EvolveWiring, type UpkeepInBackground } from './evolve-wiring.js';
import { JournalService, runtimeJournal } from './journal.js';
import { LazyMemory } from './lazy-memory.js';
import { LazyStore } from './lazy-store.js';
import { ModelPool } from './models.js';
import { modeInfos, resolveWorkModes, type WorkModeInfo } from './modes.js';
import { providerOrStandIn } from './no-model.js';
import { permissionSettings } from './permissions.js';
import { runtimeRoles } from './roles.js';
import { SessionsService } from './sessions.js';
import { runtimeSkills, type SkillsService } from './skills.js';
import { builtinRegistry, shellSetup } from './tools.js';
import { TracesService } from './traces.js';
import { startTracing } from './tracing.js';
import type { WorkflowsOptions, WorkflowsService } from './workflows.js';

/** What a face may set when it first asks for the workflows service (the rest comes from the runtime). */
export type WorkflowsSetup = Partial<
  Pick<WorkflowsOptions, 'approvals' | 'builtins' | 'now' | 'sleep' | 'heartbeatMs'>
>;

export { BACKGROUND_GRACE_MS } from '../agent/index.js';
export type { UpkeepInBackground } from './evolve-wiring.js';
/** A process still up this long after opening the store takes the day's backup then (else at close). */
export const BACKUP_AFTER_MS = 30_000;
/** The memory scopes of a workspace: the global one and the project's. */
export { memoryScopes } from '../agent/memory-jobs.js';

export interface RuntimeOptions {
  /** The workspace new sessions and tool runs use (default: the process's cwd). */
  cwd?: string;
  /** A config already loaded; otherwise it is read from the Tea home and the workspace. */
  config?: TeaConfig;
  /** The profile to use when a caller names none (default `main_model`). */
  profile?: string;
  /** Another model id for that profile. */
  model?: string;
  /** Model calls per turn (default: config `agent.max_iterations`). */
  maxTurns?: number;
  /** read-only | ask | auto-edit | yolo (default: config `permissions.mode`). */
  permissionMode?: string;
  /** More permission rules (`tool`, `tool:pattern`, `deny:tool:pattern`) after the config's. */
  allow?: string[];
  /** Directories besides the workspace that file tools may use. */
  addDir?: string[];
  /** 'deny' when nobody can answer approvals and questions (default 'ask'). */
  approvals?: 'ask' | 'deny';
  /** Name new sessions on the cheap model (default: config `agent.auto_title`). */
  titles?: boolean;
  /** Overrides the config's sandbox mode for shell commands. */
  sandbox?: SandboxMode;
  /** More tools, beside the built-in ones. */
  tools?: Tool[];
  /** For warnings about the config and set-up (default: stderr). */
  warn?: (message: string) => void;
  /** Told the config once it is loaded (before its warnings are given). */
  onConfig?: (config: TeaConfig) => void;
  /** Name and version this runtime gives MCP servers. */
  clientInfo?: { name: string; version: string };
  /** The user's home directory, where other agents keep skills (`~/.agents/skills`, `~/.claude/skills`); default the OS's. */
  userHome?: string;
  /**
   * Where spans go (an embedding application's own tracer). Default: exported over
   * OTLP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, else kept per run for `traces`.
   */
  tracer?: Tracer;
}

export interface Runtime {
  readonly config: TeaConfig;
  readonly cwd: string;
  readonly tools: ToolRegistry;
  readonly permissionMode: PermissionMode;
  /** The config's permission rules, then `allow`'s (the last match wins). */
  readonly permissionRules: readonly PermissionRule[];
  /** Directories file tools may use besides the workspace: the config's and `addDir`'s. */
  readonly allowedRoots: readonly string[];
  /** Profiles by name, and the provider chains behind them. */
  readonly models: ModelPool;
  /** The active profile's provider chain. */
  readonly provider: Provider;
  /** Long-term memory (opened on first use). */
  readonly memory: LongTermMemory;
  readonly sessions: SessionsService;
  /** The operation journal: rounds, undo, redo and diffs of what turns changed in the workspace. */
  readonly journal: JournalService;
  /** The traces kept per run (when no OTLP endpoint takes them): `tea trace list|show`. */
  readonly traces: TracesService;
  /** Token-estimate calibration per model, shared by every agent, saved on close. */
  readonly calibrator: TokenCalibrator;
  /** The agent for `profile` (default: the active one); 'deny' for faces nobody answers. */
  agentFor(profile?: string, opts?: { approvals?: 'ask' | 'deny' }): Agent;
  /**
   * The background processes (bg_start) running under this runtime's tools, every
   * session's: a face's status line counts them and is told when one starts or ends.
   */
  readonly backgroundJobs: BackgroundJobsView;
  /** The rule-engine fast path (config `rules_fast_path`, `rules`): see `matchRule` in runtime/rules.ts. */
  readonly rules: RuleSettings;
  /** The configured MCP servers (none configured: undefined). */
  readonly mcp: McpManager | undefined;
  /** The agent of the active profile, with the runtime's own `approvals`. */
  readonly agent: Agent;
  /** The work modes sessions switch between, in cycling order (Shift+Tab), the default one's name. */
  readonly modes: readonly WorkModeInfo[];
  readonly defaultMode: string;
  /**
   * The workflows service (definitions, runs, events), loaded and built on the first
   * call; `setup` applies to that first call only.
   */
  workflows(setup?: WorkflowsSetup): Promise<WorkflowsService>;
  /** The installed skills and the inbox of drafted ones (loaded on the first call). */
  skills(): Promise<SkillsService>;
  /** Prompt versions, prompt evolution, the report and upkeep (loaded and built on the first call). */
  evolve(): Promise<EvolveService>;
  /** Upkeep every hour on an unref'd timer, for a long-running process (`tea serve`); stop it before `close`. */
  upkeepInBackground(opts: UpkeepInBackground): Promise<BackgroundUpkeep>;
  /** WAL checkpoints on a worker thread, for a long-running process (`tea serve`). */
  checkpointInBackground(onError: (message: string) => void): BackgroundCheckpoints;
  /**
   * Closes MCP servers and the store (taking the daily backup first when one is due).
   * `exiting`, for a command line about to exit: the store may leave its write-ahead
   * log for the next process, and the process then exits as soon as its event loop is
   * empty, without Node's teardown (store/later.ts).
   */
  close(opts?: { exiting?: boolean }): Promise<void>;
}

export async function createRuntime(opts: RuntimeOptions = {}): Promise<Runtime> {
  const cwd = workspaceDir(opts.cwd);
  const warn = opts.warn ?? ((m: string) => process.stderr.write(`tea: warning: ${m}\n`));
  const config = opts.config ?? (await loadConfig({ cwd }));
  opts.onConfig?.(config);
  if (!opts.config) for (const w of config.warnings) warn(w);
  // Mistakes in the options first: they are the caller's to fix before anything else.
  checkOptions(opts);
  const shell = shellSetup(config, opts.sandbox, warn);
  const backgroundJobs = new BackgroundJobs();
  const tools = await builtinRegistry(config, shell, backgroundJobs);
  // In Tea's own repository (a few stats, once): the self-modification tools and a prompt line.
  const ownRepo = detectOwnRepo(cwd) !== undefined;
  if (ownRepo) registerSelfTools(tools, { home: config.home });
  if (opts.tools) tools.registerAll(opts.tools);
  const skills = runtimeSkills({
    home: config.home,
    cwd,
    ...(opts.userHome ? { userHome: opts.userHome } : {}),
    tools,
    warn,
  });
  // Tools the agent wrote (TEA_HOME/tools), by their manifests, before --allow rules are checked
  // against the names; built-in, MCP (mcp__…) and delegation names (task, agent_…) win.
  registerUserTools(tools, { home: config.home, warn });
  const mcpNames = Object.keys(config.mcpServers);
  const permissions = permissionSettings(config, opts, tools.names());
  const { mode: permissionMode, rules: permissionRules, roots: allowedRoots } = permissions;
  const models = new ModelPool(config, {
    ...(opts.profile ? { profile: opts.profile } : {}),
    ...(opts.model ? { model: opts.model } : {}),
  });
  let mcp: McpManager | undefined;
  if (mcpNames.length > 0) {
    // Only the cached tool lists are read here; servers connect on their first call.
    const { attachMcp } = await import('../tools/mcp/index.js');
    mcp = await attachMcp(tools, config.mcpServers, {
      home: config.home,
      cwd,
      sandbox: shell.sandbox,
      warn,
      clientInfo: opts.clientInfo ?? { name: 'tea-agent', version: '0' },
      ...{ sampling: config.mcpSampling, roots: allowedRoots, unattended: config.mcpElicitation.unattended },
    });
  }
  const calibrationFile = path.join(config.home, 'calibration.json');
  const calibrator = loadCalibration(calibrationFile);
  // The agents' settings, each agent's differing only in `approvals`.
  const settings = settingsFrom(config, {
    maxIterations: opts.maxTurns,
    permissionMode,
    permissionRules,
    allowedRoots,
    ...(opts.titles === false ? { titles: false } : {}),
    ...(ownRepo ? { promptNote: SELF_MODE_NOTE } : {}),
  });
  const lazyStore = new LazyStore(config.home, BACKUP_AFTER_MS, warn);
  const openStore = lazyStore.open;
  // Spans: kept in the store per run, or (only when an endpoint is set) exported over OTLP.
  const tracing = await startTracing({
    env: process.env,
    store: openStore,
    warn,
    version: opts.clientInfo?.version ?? '0',
    ...(opts.tracer ? { tracer: opts.tracer } : {}),
  });
  // Memory modules load on first real use (a new home's recall needs none of them).
  let memory: LazyMemory | undefined;
  const openMemory = (): LazyMemory => {
    memory ??= new LazyMemory({
      db: () => openStore().db,
      load: async () => {
        const [{ MemoryService }, { modelJudge }, { embedderFor }] = await Promise.all([
          import('../memory/service.js'),
          import('../memory/judge.js'),
          import('./embedder.js'),
        ]);
        return new MemoryService({
          db: openStore().db,
          embedder: embedderFor(config),
          ...(config.memory.judge ? { judge: modelJudge(models.cheapProvider()) } : {}),
        });
      },
    });
    return memory;
  };
  // Sub-agents: the tools are known by their facts; the delegator loads on their first call.
  let delegator: Promise<Delegator> | undefined;
  const roles = await runtimeRoles({
    home: config.home,
    cwd,
    profiles: models.names(),
    knownTools: tools.names(),
    warn,
  });
  registerDelegationTools(tools, roles.list(), () => {
    delegator ??= Promise.all([import('../multi/delegate.js'), import('../multi/roles/output.js')]).then(
      ([{ Delegator }, { outputChecker, repairPrompt }]) =>
        new Delegator({
          agentFor: (profile) => agentFor(profile),
          hasProfile: (name) => models.has(name),
          roles,
          limits: config.subagents,
          output: { checker: outputChecker, repairPrompt },
        }),
    );
    return delegator;
  });
  // Work modes, checked against every tool registered by now (names and categories).
  const workModes = resolveWorkModes(config.workModes, tools);
  settings.workModes = workModes;
  // Self-evolution: the skills block of L0 and the after-prompt jobs (evaluation, lessons, drafts).
  const evolve = runtimeHooks({ skills, store: openStore, memory: openMemory, config, opts });
  const agents = new Map<string, Agent>();
  const journal = runtimeJournal(config, openStore, warn);
  const evolveWiring = new EvolveWiring({
    store: openStore,
    home: config.home,
    cwd,
    cheap: () => models.cheapProvider(),
    tools,
    agents: () => agents.values(),
  });
  const agentFor = (profile?: string, o: { approvals?: 'ask' | 'deny' } = {}): Agent => {
    const name = profile ?? models.active;
    const approvals = o.approvals ?? 'ask';
    const key = `${approvals}\u0000${name}`;
    let agent = agents.get(key);
    // Each session starts from an agent: a prompt version another process set applies to it.
    if (agent) evolveWiring.refresh();
    else {
      const { provider, noModel } = providerOrStandIn(models, name);
      agent = new Agent({
        cwd,
        provider,
        ...(noModel === undefined ? { cheapProvider: models.cheapProvider(name) } : { noModel }),
        tools,
        store: openStore(),
        memory: openMemory(),
        calibrator,
        journal,
        ...(tracing.tracer ? { tracer: tracing.tracer } : {}),
        ...(evolve ? { evolve } : {}),
        settings: { ...settings, approvals, instructions: evolveWiring.instructions() },
      });
      agents.set(key, agent);
    }
    return agent;
  };
  const sessions = new SessionsService({
    store: openStore,
    agentFor: (profile, approvals) => agentFor(profile, { approvals }),
    hasProfile: (name) => models.has(name),
    workModes: () => ({ set: workModes, infos: modeInfos(workModes, tools, permissionMode) }),
    modelOf: (name) => models.provider(name).info.model,
  });
  let workflows: Promise<WorkflowsService> | undefined;
  const workflowsService = (setup: WorkflowsSetup = {}): Promise<WorkflowsService> => {
    workflows ??= Promise.all([
      import('./workflows.js'),
      import('../multi/node-runner.js'),
      import('../multi/roles/output.js'),
    ]).then(
      ([{ WorkflowsService }, { roleNodeRunner }, { outputChecker, repairPrompt }]) =>
        new WorkflowsService({
          ...setup,
          store: openStore,
          cwd,
          home: config.home,
          agents: roleNodeRunner({
            agentFor: (profile) => agentFor(profile, { approvals: 'deny' }),
            hasProfile: (name) => models.has(name),
            roles,
            limits: config.subagents,
            cwd,
            tools,
            permissions: { mode: permissionMode, rules: permissionRules },
            roots: allowedRoots,
            output: { checker: outputChecker, repairPrompt },
          }),
          tools,
          permissions: { mode: permissionMode, rules: permissionRules, roots: allowedRoots },
          ...(tracing.tracer ? { tracer: tracing.tracer } : {}),
        }),
    );
    return workflows;
  };
  let closed = false;
  return {
    config,
    cwd,
    tools,
    permissionMode,
    permissionRules,
    allowedRoots,
    models,
    get provider() {
      return models.provider();
    },
    get memory() {
      return openMemory();
    },
    sessions,
    journal: new JournalService(journal, sessions),
    traces: new TracesService(openStore),
    calibrator,
    agentFor,
    backgroundJobs,
    rules: settings.rules,
    mcp,
    get agent() {
      return agentFor(undefined, { approvals: opts.approvals ?? 'ask' });
    },
    get modes() {
      return modeInfos(workModes, tools, permissionMode);
    },
    defaultMode: workModes.defaultMode,
    workflows: workflowsService,
    skills: () => skills.service(),
    evolve: () => evolveWiring.evolve(),
    upkeepInBackground: (o) => evolveWiring.upkeepInBackground(o),
    checkpointInBackground: (onError) => checkpointInBackground(openStore().db, { onError }),
    async close(o = {}) {
      if (closed) return;
      closed = true;
      saveCalibration(calibrationFile, calibrator);
      await tracing.close();
      // MCP stdio servers also exit when their stdin closes with this process.
      await mcp?.close();
      // Exiting: a small write-ahead log stays for the next process (store/later.ts), so
      // the process must end without Node's teardown, which would close the database.
      if (lazyStore.close(o.exiting === true)) process.once('beforeExit', () => process.exit());
    },
  };
}

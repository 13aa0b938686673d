import path from 'node:path';
import { duration, MAX_TIMER_MS } from '../llm/timers.js';
import type { Message } from '../llm/types.js';
import type { SessionRow } from '../store/index.js';
import { type PermissionMode, PermissionPolicy } from '../tools/permissions.js';
import { yieldToEventLoop } from '../util/yield.js';
import { STATE_GRANTS } from './approval.js';
import type { CompactResult, SessionContext, Settled } from './context.js';
import type { AgentEvent, ApprovalDecision } from './events.js';
import { afterPromptInBackground, evolveHooks, offerSkills, resumedTurn } from './evolve-run.js';
import { nothingToRetry, retryInput, toModelMessages } from './history.js';
import { type SessionHost, STATE_LOADED_TOOLS } from './host.js';
import { Interactions } from './interactions.js';
import { journaled } from './journal/turn.js';
import { SessionLease } from './lease.js';
import { runTurn, type TurnInput, type TurnResult } from './loop.js';
import { queueAfterTurn, recallMemories } from './memory-jobs.js';
import { sessionSystemPrompt, withInstructions } from './prompt.js';
import { UsageMeter } from './record.js';
import { SessionRecorder } from './recorder.js';
import { planPrompt, refusePrompt } from './rules/plan.js';
import { runRuleTurn } from './rules/run.js';
import type { AgentServices, AgentSetup } from './services.js';
import { doneEvent, nameInBackground, openContext, saveLeftovers } from './session-jobs.js';
import { SessionWorkMode } from './session-mode.js';
import type { PromptOptions, SessionOptions } from './session-options.js';
import { sessionState } from './session-state.js';
import type { AgentSettings } from './settings.js';
import { abortFlag, TurnStopped, turnSignal } from './stop.js';
import { AgentTrace, tracerOr } from './trace.js';
import type { Turn, TurnState } from './turn.js';

/**
 * How long a face about to exit waits for background jobs (title, summaries, memory
 * extraction on the cheap model) before it stops them.
 */
export const BACKGROUND_GRACE_MS = 5000;

export type { PromptOptions, SessionOptions } from './session-options.js';

/**
 * A conversation. `prompt` runs a turn (and any follow-ups queued meanwhile)
 * and yields its events; `steer` and `followUp` queue messages while it runs.
 */
export class Session {
  private readonly steering: string[] = [];
  private readonly followUps: string[] = [];
  private running = false;
  private readonly callIds = new Set<string>();
  /** The agent's services (with this session's tools) and settings, by reference. */
  private readonly services: AgentServices;
  private readonly settings: AgentSettings;
  /** A role's (sub-agent's) system prompt; a top-level session's comes from its work mode. */
  private readonly rolePrompt: string;
  /** A top-level session's work mode (sub-agents run their roles instead). */
  private readonly work: SessionWorkMode | undefined;
  /** What this session shares with the tools it runs. */
  private readonly host: SessionHost;
  /** Writes every message, tool-call transition and model call's usage of this session's turns. */
  private readonly recorder: SessionRecorder;
  private readonly policy: PermissionPolicy;
  private context: SessionContext | undefined;
  private memoryJob: Promise<void> = Promise.resolve();
  /** The first message, while no turn has gone well enough to name the session after it. */
  private untitled: string | undefined;
  /** Stored messages the in-memory history reflects; another runner's writes change the count. */
  private storedCount: number;
  /** Told when the automatic title is stored (after the turn's `done`: a face updates what it shows). */
  onTitle: ((event: Extract<AgentEvent, { type: 'title' }>) => void) | undefined;

  constructor(
    agent: AgentSetup,
    readonly row: SessionRow,
    /** The transcript as the model sees it (no system message). */
    readonly history: Message[],
    opts: SessionOptions = {},
  ) {
    const { services, settings } = agent;
    const { store, tools } = services;
    this.services = services;
    this.settings = settings;
    for (const m of history) for (const p of m.parts) if (p.type === 'tool-call') this.callIds.add(p.id);
    this.storedCount = opts.storedCount ?? store.messages.count(row.id);
    const state = sessionState(store, row.id);
    this.host = {
      store,
      sessionId: row.id,
      tools,
      interactions: opts.interactions ?? new Interactions(settings.approvals),
      loaded: new Set(state.get(STATE_LOADED_TOOLS) ?? []),
      ...(opts.fs ? { fs: opts.fs } : {}),
      ...(opts.shell ? { shell: opts.shell } : {}),
    };
    this.recorder = new SessionRecorder(store, row.id);
    this.policy = opts.policy ?? new PermissionPolicy(settings.permissionMode, settings.permissionRules);
    this.policy.restoreGrants(state.get(STATE_GRANTS) ?? []);
    const deps = { store, sessionId: row.id, cwd: row.cwd, settings, tools, policy: this.policy };
    this.work = row.role ? undefined : new SessionWorkMode(deps);
    this.rolePrompt = this.work ? '' : sessionSystemPrompt(settings, row.cwd, tools);
  }

  /** The work mode (`design`, `develop`, …); undefined for a sub-agent's session, which runs its role. */
  get workMode(): string | undefined {
    return this.work?.mode.name;
  }

  /** The work modes it can switch to, in cycling order (none for a sub-agent's session). */
  get workModes(): readonly string[] {
    return this.work?.names ?? [];
  }

  /**
   * Switches the work mode (kept with the session: a resume keeps it) and the permission
   * mode to the new mode's default; a later `setPermissionMode` holds until the next
   * switch. Tools and prompt apply from the next prompt. Throws for an unknown name.
   */
  setWorkMode(name: string): void {
    if (!this.work) throw new Error(`session ${this.id} runs the role ${this.row.role}: it has no work mode`);
    this.work.switchTo(name);
  }

  /** The permission mode now in force for this session's tool calls. */
  get permissionMode(): PermissionMode {
    return this.policy.mode;
  }

  /** Switches the permission mode for the following tool calls (e.g. an editor's mode picker). */
  setPermissionMode(mode: PermissionMode): void {
    this.policy.mode = mode;
  }

  /** Answers an `approval_request`; false when no such request is waiting. */
  approve(requestId: string, decision: ApprovalDecision, message?: string): boolean {
    return this.host.interactions.resolve(requestId, {
      kind: 'approval',
      decision,
      ...(message === undefined ? {} : { message }),
    });
  }

  /** Answers a `question`; false when no such question is waiting. */
  answer(requestId: string, text: string): boolean {
    return this.host.interactions.resolve(requestId, { kind: 'answer', text });
  }

  get id(): string {
    return this.row.id;
  }

  get busy(): boolean {
    return this.running;
  }

  /** The ids of the approval requests and questions waiting for the user now. */
  get waiting(): string[] {
    return this.host.interactions.waiting;
  }

  /** Whether `retry` has a message to run again (the transcript as this runner last read it). */
  get canRetry(): boolean {
    return retryInput(this.history) !== undefined;
  }

  /** Runs the last turn again when it got no answer: its message is reused, not stored twice. */
  retry(opts: Omit<PromptOptions, 'images' | 'retry'> = {}): AsyncGenerator<AgentEvent> {
    return this.prompt('', { ...opts, retry: true });
  }

  /** Queues a message that pre-empts the remaining tool calls; false when no turn is running. */
  steer(text: string): boolean {
    if (!this.running) return false;
    this.steering.push(text);
    return true;
  }

  /** Queues a message that starts a new turn when the current one ends; false when idle. */
  followUp(text: string): boolean {
    if (!this.running) return false;
    this.followUps.push(text);
    return true;
  }

  async *prompt(input: string, opts: PromptOptions = {}): AsyncGenerator<AgentEvent> {
    if (this.running)
      throw new Error(`session ${this.id} is busy: use steer() or followUp() while a turn runs`);
    this.running = true;
    const user = opts.signal ?? new AbortController().signal;
    const lease = new SessionLease(this.services.store, this.id, this.settings.lease);
    try {
      const taken = yield* lease.take(user);
      if (!taken.ok) {
        const none = { inputTokens: 0, outputTokens: 0 };
        const message = 'message' in taken ? taken.message : 'Cancelled while waiting for the session.';
        if ('message' in taken) yield { type: 'error', kind: 'session_busy', message };
        const reason = 'message' in taken ? 'error' : 'cancelled';
        yield { type: 'done', sessionId: this.id, reason, text: '', message, usage: none, costUsd: 0 };
        return;
      }
      const turn = turnSignal(user);
      lease.hold((why) => turn.stop(new TurnStopped('lease_lost', why)));
      const limit = this.settings.turnTimeoutMs;
      const deadline = setTimeout(
        () => {
          const why = `The turn ran past its deadline of ${duration(limit)} (agent.turn_timeout_s)`;
          turn.stop(new TurnStopped('deadline', why));
        },
        Math.min(limit, MAX_TIMER_MS),
      );
      const trace = new AgentTrace(tracerOr(this.services.tracer), opts.traceParent, {
        sessionId: this.id,
        agentName: this.row.role ?? 'tea',
        model: this.services.provider.info,
      });
      try {
        this.catchUp();
        this.work?.sync();
        yield* this.run(input, opts, turn.signal, trace);
      } finally {
        trace.end(); // after `done` it has ended; a consumer that stopped early ends it here
        clearTimeout(deadline);
        turn.dispose();
        this.storedCount = this.services.store.messages.count(this.id);
        lease.release();
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * With the lease held: answers what a dead runner left unfinished, and reloads the
   * transcript when another runner wrote to the session since this one last read it.
   */
  private catchUp(): void {
    this.services.store.recover(this.id);
    const stored = this.services.store.messages.count(this.id);
    if (stored === this.storedCount) return;
    const history = toModelMessages(this.services.store.messages.list(this.id));
    this.history.splice(0, this.history.length, ...history);
    for (const m of history) for (const p of m.parts) if (p.type === 'tool-call') this.callIds.add(p.id);
    const state = sessionState(this.services.store, this.id);
    this.host.loaded = new Set(state.get(STATE_LOADED_TOOLS) ?? []);
    const grants = state.get(STATE_GRANTS) ?? [];
    const held = new Set(this.policy.sessionGrants.map((g) => JSON.stringify(g)));
    this.policy.restoreGrants(grants.filter((g) => !held.has(JSON.stringify(g))));
    this.context?.reload();
    this.storedCount = stored;
  }

  private async *run(
    input: string,
    opts: PromptOptions,
    signal: AbortSignal,
    trace: AgentTrace,
  ): AsyncGenerator<AgentEvent> {
    const usage = new UsageMeter();
    const again = opts.retry ? retryInput(this.history) : undefined;
    if (opts.retry && !again) return yield* nothingToRetry(this.id);
    const { rules } = this.settings;
    const { tools, noModel } = this.services;
    const plan = planPrompt({ input, retry: opts.retry === true, rules, tools, noModel });
    if (plan.kind === 'refuse') return yield* refusePrompt(this.id, plan);
    // A rule's prompt runs one tool: no memories, skills or background jobs for it.
    let rule = plan.kind === 'rule' ? plan.match : undefined;
    let last: Omit<TurnResult, 'iterations'> = { reason: 'completed', text: '' };
    // (The stored row: a face may have named the session since this one was read.)
    if (!this.row.title && this.history.length === 0 && !this.services.store.sessions.get(this.id)?.title) {
      // The title is the first words: a pasted megabyte is not flattened whole for them.
      const title = input.slice(0, 1000).replace(/\s+/g, ' ').trim().slice(0, 80);
      this.services.store.sessions.update(this.id, { title });
    }
    const { toolOutputRoot, allowedRoots } = this.settings;
    const outputDir = toolOutputRoot ? path.join(toolOutputRoot, this.id) : undefined;
    if (this.history.length === 0) this.untitled = input;
    const context = await this.sessionContext();
    const systemPrompt = withInstructions(this.work?.systemPrompt ?? this.rolePrompt, opts.instructions);
    context.useSystem(systemPrompt);
    let next: TurnInput | undefined = again
      ? { ...again, stored: true, probe: opts.probe !== false }
      : opts.toolResults
        ? { text: '', resume: opts.toolResults }
        : { text: input, images: opts.images };
    await yieldToEventLoop(); // recall, then storing the input: long stretches for a huge one
    const recall = this.settings.recall && !rule;
    context.memories = recall ? await recallMemories(this.services.memory, next.text, this.row.cwd) : '';
    const hooks = evolveHooks(this.row, this.services);
    const readRoots = rule ? [] : await offerSkills(hooks, this.host, context, next.text, this.row.cwd);
    await yieldToEventLoop();
    const firstMessage = this.history.length;
    const state: TurnState = {
      sessionId: this.id,
      cwd: this.row.cwd,
      depth: this.row.depth,
      systemPrompt,
      roots: outputDir ? [...allowedRoots, outputDir] : allowedRoots,
      readRoots,
      outputDir,
      history: this.history,
      steering: this.steering,
      callIds: this.callIds,
      policy: this.policy,
      host: this.host,
      signal,
      stop: abortFlag(signal),
      context,
      recorder: this.recorder,
      usage,
      trace,
      clientCalls: sessionState(this.services.store, this.id).get('client_calls'),
      ...(opts.client ? { client: opts.client } : {}),
      ...(this.work
        ? { preload: this.work.preload, refusal: (name: string) => this.work?.refusal(name) }
        : {}),
    };
    const services = this.work ? { ...this.services, tools: this.work.tools } : this.services;
    const turn: Turn = { services, settings: this.settings, state };
    let modelRan = false;
    while (next) {
      modelRan ||= !rule;
      const [current, now] = [rule, next];
      const result: TurnResult = yield* journaled(this.services, state, (id) =>
        current ? runRuleTurn(turn, now, current, id) : runTurn(turn, now, id),
      );
      rule = undefined; // follow-ups queued meanwhile are for the model
      last = result;
      const queued = this.followUps.shift();
      const goOn = result.reason !== 'cancelled' && result.reason !== 'client_tools';
      next = queued !== undefined && goOn ? { text: queued } : undefined;
    }
    // A turn that stopped for the client's tools is looked back on when its results have ended it.
    const paused = last.reason === 'client_tools';
    // After a cancel or a failed model, no cheap-model work for a face to wait on (a later turn does it).
    if (modelRan && last.reason !== 'cancelled' && last.reason !== 'error') {
      nameInBackground(this.services, this.settings, context, {
        sessionId: this.id,
        input: this.untitled,
        onTitle: (e) => this.onTitle?.(e),
      });
      this.untitled = undefined;
      if (!opts.ephemeral && !paused) this.memoryInBackground(context);
    }
    const { reason, text } = last;
    // Continued with the client's results: the record is the whole turn, from its user message.
    const whole = opts.toolResults ? resumedTurn(this.history, firstMessage) : { start: firstMessage, input };
    const messages = this.history.slice(whole.start);
    const record = { sessionId: this.id, cwd: this.row.cwd, input: whole.input, reason, text, messages };
    if (modelRan && !opts.ephemeral && !paused)
      afterPromptInBackground(this.row, this.services, context, this.history, record);
    const queued = [...this.steering.splice(0), ...this.followUps.splice(0)];
    const leftover = await saveLeftovers(queued, this.recorder, this.history);
    const done = doneEvent(this.id, last, leftover, usage);
    trace.end(done);
    yield done;
  }

  /** Compacts the context now (`/compact`): the turns so far go into the L3 summary; refused while a turn runs. */
  async compact(signal: AbortSignal = new AbortController().signal): Promise<CompactResult> {
    if (this.running) throw new Error(`session ${this.id} is busy: compact it when the turn has ended`);
    this.running = true;
    try {
      return await (await this.sessionContext()).compactNow(this.history, signal);
    } finally {
      this.running = false;
    }
  }

  /** Resolves when the session's background jobs (summaries, title) have finished. */
  async settled(): Promise<void> {
    await this.context?.settled();
  }

  /** For a face about to exit: waits up to `graceMs` for background jobs, then stops them (says which). */
  async settle(graceMs: number): Promise<Settled> {
    return (await this.context?.settle(graceMs)) ?? { stopped: [] };
  }

  private async sessionContext(): Promise<SessionContext> {
    const [id, system] = [this.id, this.work?.systemPrompt ?? this.rolePrompt];
    this.context ??= await openContext(this.services, this.settings, { id, cwd: this.row.cwd, system });
    return this.context;
  }

  /** Memory extraction and upkeep after the turn, on the cheap model, without waiting. */
  private memoryInBackground(context: SessionContext): void {
    const { memory, cheapProvider: cheap, store } = this.services;
    const jobs = this.settings.memoryJobs;
    const o = { memory, cheap, jobs, store, sessionId: this.id, cwd: this.row.cwd };
    this.memoryJob = queueAfterTurn(this.memoryJob, o, context);
  }
}

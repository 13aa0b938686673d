/**
 * One Tea session as an ACP session: runs prompts and streams their events as
 * `session/update`s, bridges approvals to `session/request_permission`, answers
 * slash commands, and replays the transcript on `session/load`.
 */
import {
  type AgentContext,
  type ContentBlock,
  type PermissionOption,
  RequestError,
  type SessionUpdate,
  type StopReason,
} from '@agentclientprotocol/sdk';
import type { AgentEvent, ApprovalDecision } from '../agent/events.js';
import type { Journal, Session } from '../agent/index.js';
import type { LongTermMemory } from '../memory/api.js';
import { BACKGROUND_GRACE_MS } from '../runtime/runtime.js';
import type { UserCommand } from '../runtime/user-commands.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ClientFs, ClientShell } from '../tools/types.js';
import { approvalContent } from './approval-content.js';
import { availableCommands, expandPrompt, parseCommand, runCommand } from './commands.js';
import { elicitAnswer, NO_ANSWER } from './elicitation.js';
import { toTeaPrompt } from './prompt-input.js';
import { replayUpdates } from './replay.js';
import { childCallId } from './subagents.js';
import type { AcpTerminals } from './terminal.js';
import { loadForTitles, toolKind, toolLocations, toolTitle } from './tool-info.js';
import { UpdateMapper } from './updates.js';
import { allows, type UpdateGate } from './usage-gate.js';

export interface LiveDeps {
  client: AgentContext;
  /** The tools this session sees: the shared registry, or an overlay with its own MCP servers. */
  tools: ToolRegistry;
  /** Stops the session's own MCP servers. */
  closeTools?: () => Promise<void>;
  memory?: LongTermMemory;
  /** The operation journal, for /undo and /redo. */
  journal?: Journal;
  contextWindow: number;
  log: (line: string) => void;
  /** The user's `.tea/commands` templates: offered with the built-in commands, expanded before the model sees them. */
  userCommands?: Promise<readonly UserCommand[]>;
  /** The update kinds newer than the client may be held back (usage-gate.ts); absent: all are sent. */
  updates?: UpdateGate;
  /** The client's terminals, when it offers them (bash runs there). */
  terminals?: AcpTerminals;
  /** The client renders elicitation forms: `ask_user` questions go to the user. */
  elicit?: boolean;
}

export const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Always allow in this session', kind: 'allow_always' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

const DECISIONS: Record<string, ApprovalDecision> = {
  allow_once: 'once',
  allow_always: 'always',
  reject: 'reject',
};

type DoneEvent = Extract<AgentEvent, { type: 'done' }>;

export class LiveSession {
  private running: AbortController | undefined;
  /** The prompt in progress (settles when it has answered). */
  private current: Promise<unknown> = Promise.resolve();
  private readonly mapper: UpdateMapper;
  /** Updates go out in this order: the turn's events, and terminals shown while a call runs. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    /** The Tea session; `reopen` replaces it (a model or profile switch). */
    public session: Session,
    private readonly deps: LiveDeps,
    private readonly fs: ClientFs | undefined,
  ) {
    this.mapper = new UpdateMapper({
      cwd: session.row.cwd,
      ...(fs ? { fs } : {}),
      contextWindow: deps.contextWindow,
      send: (u) => this.send(u),
      ...(deps.terminals ? { terminalOf: (id: string) => deps.terminals?.terminalOf(id) } : {}),
    });
    if (deps.terminals) {
      deps.terminals.show = (toolCallId, terminalId) =>
        this.enqueue(() =>
          this.send({
            sessionUpdate: 'tool_call_update',
            toolCallId,
            content: [{ type: 'terminal', terminalId }],
          }),
        );
    }
  }

  /** Runs `step` once the updates queued before it are out (a failure is logged, the queue goes on). */
  private enqueue(step: () => void | Promise<void>): void {
    this.queue = this.queue.then(step).catch((error: unknown) => this.logFailure(error));
  }

  get id(): string {
    return this.session.id;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Queues one update; a closed connection drops it (the session itself is unaffected). */
  send(update: SessionUpdate): void {
    if (this.deps.updates && !allows(this.deps.updates, update.sessionUpdate)) return;
    this.deps.client.notify('session/update', { sessionId: this.id, update }).catch(() => undefined);
  }

  async announceCommands(): Promise<void> {
    const user = (await this.deps.userCommands) ?? [];
    this.send({ sessionUpdate: 'available_commands_update', availableCommands: availableCommands(user) });
  }

  /** Sends the stored transcript as updates (the tools it calls loaded first: their titles name subjects). */
  async replay(): Promise<void> {
    const { history } = this.session;
    const called = history.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool-call' ? [p.name] : [])));
    await loadForTitles(this.deps.tools, called);
    for (const u of replayUpdates(history, this.deps.tools, this.session.row.cwd)) this.send(u);
  }

  /**
   * Swaps in the same stored session reopened by `open` (on another profile's agent),
   * with this session's tools, file system and terminals; the permission mode and title watcher
   * carry over. Refused while a prompt runs.
   */
  reopen(open: (opts: { tools: ToolRegistry; fs?: ClientFs; shell?: ClientShell }) => Session): void {
    this.checkIdle();
    const next = open({
      tools: this.deps.tools,
      ...(this.fs ? { fs: this.fs } : {}),
      ...(this.deps.terminals ? { shell: this.deps.terminals } : {}),
    });
    next.setPermissionMode(this.session.permissionMode);
    next.onTitle = this.session.onTitle;
    this.session = next;
  }

  /** Aborts the running prompt (it answers `cancelled`); a no-op when idle. */
  cancel(): void {
    this.running?.abort();
  }

  /**
   * Resolves once no prompt runs and the session's background jobs (summaries, title)
   * are done, or stopped after a few seconds (a hung cheap model must not hold the exit).
   */
  async idle(): Promise<void> {
    await this.current.catch(() => undefined);
    await this.session.settle(BACKGROUND_GRACE_MS);
  }

  /** Stops the session's own MCP servers (idempotent). */
  async closeTools(): Promise<void> {
    await this.deps.closeTools?.();
  }

  /** Ends the session here: cancels its prompt, waits for it (background jobs a bounded time), stops its servers. */
  async close(): Promise<void> {
    this.cancel();
    await this.idle();
    await this.closeTools();
  }

  prompt(blocks: readonly ContentBlock[]): Promise<StopReason> {
    const run = this.run(blocks);
    this.current = run;
    return run;
  }

  private checkIdle(): void {
    if (this.running) {
      throw RequestError.invalidRequest(
        { sessionId: this.id },
        'a prompt is already running in this session; send session/cancel first',
      );
    }
  }

  private async run(blocks: readonly ContentBlock[]): Promise<StopReason> {
    this.checkIdle();
    const input = toTeaPrompt(blocks);
    const command = input.images.length === 0 ? parseCommand(input.text) : undefined;
    if (command) {
      const text = await runCommand(command, {
        session: this.session,
        tools: this.deps.tools,
        ...(this.deps.memory ? { memory: this.deps.memory } : {}),
        ...(this.deps.journal ? { journal: this.deps.journal } : {}),
        send: (u) => this.send(u),
      });
      this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
      return 'end_turn';
    }
    // A user command goes to the model as its expanded template (images, if any, with it).
    if (input.text.trimStart().startsWith('/')) {
      const expanded = expandPrompt(input.text, (await this.deps.userCommands) ?? []);
      if (expanded !== undefined) input.text = expanded;
      this.checkIdle(); // another prompt may have started while the commands loaded
    }
    if (input.text.trim() === '' && input.images.length === 0) {
      throw RequestError.invalidParams({ sessionId: this.id }, 'the prompt is empty');
    }
    const ctrl = new AbortController();
    this.running = ctrl;
    try {
      let done: DoneEvent | undefined;
      const events = this.session.prompt(input.text, {
        signal: ctrl.signal,
        ...(input.images.length > 0 ? { images: input.images } : {}),
      });
      // Updates go out in event order through `queue`, while the loop keeps pulling
      // events (a slow diff read never delays the next tool's snapshot).
      for await (const e of events) {
        this.mapper.observe(e);
        if (e.type === 'approval_request') {
          // Asked after the call's own updates are out; the queue does not wait for the answer.
          this.enqueue(() => {
            void this.askPermission(e, ctrl.signal);
          });
        } else if (e.type === 'question') {
          if (this.deps.elicit) {
            this.enqueue(() => {
              void this.askQuestion(e, ctrl.signal);
            });
          } else this.session.answer(e.requestId, NO_ANSWER);
        } else if (e.type === 'done') {
          done = e;
          const last = e;
          this.enqueue(() => this.mapper.finish(last));
        } else this.enqueue(() => this.mapper.handle(e));
      }
      await this.queue;
      return this.stopReason(done, ctrl.signal);
    } catch (error) {
      if (error instanceof RequestError) throw error;
      if (ctrl.signal.aborted) return 'cancelled';
      const message = error instanceof Error ? error.message : String(error);
      this.deps.log(`tea acp: prompt failed: ${message}`);
      throw RequestError.internalError({ sessionId: this.id }, message);
    } finally {
      this.running = undefined;
    }
  }

  private logFailure(error: unknown): void {
    this.deps.log(
      `tea acp: could not send an update: ${error instanceof Error ? error.message : String(error)}`,
    );
  }

  private stopReason(done: DoneEvent | undefined, signal: AbortSignal): StopReason {
    if (signal.aborted || done?.reason === 'cancelled') return 'cancelled';
    switch (done?.reason) {
      case 'max_iterations':
        return 'max_turn_requests';
      case 'budget':
        return 'max_tokens';
      case 'error':
        throw RequestError.internalError(
          { sessionId: this.id, reason: 'error' },
          done.message ?? 'the model call failed',
        );
      case 'doom_loop':
        if (done.message)
          this.send({
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: `\n\n${done.message}` },
          });
        return 'end_turn';
      default:
        return 'end_turn';
    }
  }

  /** Puts the model's question to the user (`elicitation/create`) and answers it with what they said. */
  private async askQuestion(
    e: Extract<AgentEvent, { type: 'question' }>,
    signal: AbortSignal,
  ): Promise<void> {
    const toolCallId = e.agent ? childCallId(e.agent, e.callId) : e.callId;
    const text = await elicitAnswer(this.deps.client, this.id, e, toolCallId, signal);
    if (text !== undefined) this.session.answer(e.requestId, text);
  }

  /**
   * Asks the editor about one call and answers the waiting approval. A cancelled
   * turn cancels the request (`$/cancel_request`) and the call ends as cancelled.
   */
  private async askPermission(
    e: Extract<AgentEvent, { type: 'approval_request' }>,
    signal: AbortSignal,
  ): Promise<void> {
    const cwd = this.session.row.cwd;
    let decision: ApprovalDecision = 'reject';
    let message: string | undefined;
    try {
      const content = await approvalContent(e, cwd, this.fs);
      // A sub-agent's call: its own id and its label, as its tool call was reported.
      const title = toolTitle(this.deps.tools, e.tool, e.args);
      const res = await this.deps.client.request(
        'session/request_permission',
        {
          sessionId: this.id,
          toolCall: {
            toolCallId: e.agent ? childCallId(e.agent, e.callId) : e.callId,
            title: e.agent ? `${e.agent.label}: ${title}` : title,
            kind: toolKind(this.deps.tools, e.tool),
            status: 'pending',
            locations: toolLocations(e.tool, e.args, cwd),
            rawInput: e.args,
            ...(content.length > 0 ? { content } : {}),
          },
          options: PERMISSION_OPTIONS,
        },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
      if (res.outcome.outcome === 'selected') {
        decision = DECISIONS[res.outcome.optionId] ?? 'reject';
        if (!(res.outcome.optionId in DECISIONS)) message = `unknown option ${res.outcome.optionId}`;
      } else {
        message = 'the user cancelled';
      }
    } catch (error) {
      message = signal.aborted
        ? 'the turn was cancelled'
        : `the editor did not answer: ${error instanceof Error ? error.message : String(error)}`;
    }
    // The call's own tool_update (running, or denied) tells the editor what came of it.
    this.session.approve(e.requestId, decision, message);
  }
}

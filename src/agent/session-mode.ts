/**
 * One top-level session's work mode (work-modes.ts): which mode is in force, the view
 * of the session's tools it offers, the system prompt with its line, and the refusal
 * a call outside it gets. The mode is kept in the session's state (`work_mode`), so a
 * resume, another face or another process sees the same one. Sub-agents' sessions run
 * their roles and have none.
 */
import type { PermissionMode, PermissionPolicy } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import { formatError } from '../tools/run.js';
import { sessionSystemPrompt } from './prompt.js';
import { type StateStore, sessionState } from './session-state.js';
import type { AgentSettings } from './settings.js';
import { BUILTIN_MODE_SET, modeOffers, type WorkMode, type WorkModeSet } from './work-modes.js';

export const STATE_WORK_MODE = 'work_mode';

export interface SessionModeDeps {
  store: StateStore;
  sessionId: string;
  cwd: string;
  settings: AgentSettings;
  /** The session's registry (its overlay, when it has one): the mode's view is over it. */
  tools: ToolRegistry;
  policy: PermissionPolicy;
}

export class SessionWorkMode {
  private readonly set: WorkModeSet;
  private current!: WorkMode;
  private view!: ToolRegistry;
  private prompt!: string;
  /** The permission mode the prompt's line was written for. */
  private promptFor: PermissionMode | undefined;

  constructor(private readonly deps: SessionModeDeps) {
    this.set = deps.settings.workModes ?? BUILTIN_MODE_SET;
    const stored = this.stored();
    this.apply(this.set.get(stored ?? '') ?? this.set.get(this.set.defaultMode)!);
  }

  get mode(): WorkMode {
    return this.current;
  }

  /** The names of the modes there are, in cycling order. */
  get names(): string[] {
    return this.set.names;
  }

  /** The tools the mode offers (the session's whole registry for a mode offering every tool). */
  get tools(): ToolRegistry {
    return this.view;
  }

  /** The system prompt: rewritten when the mode or the permission mode changed since. */
  get systemPrompt(): string {
    if (this.promptFor !== this.deps.policy.mode) this.writePrompt();
    return this.prompt;
  }

  /**
   * Switches to `name` (stored for the session) and to its permission mode; throws,
   * naming the modes there are, for an unknown name.
   */
  switchTo(name: string): WorkMode {
    const mode = this.set.get(name);
    if (!mode) throw this.set.unknown(name);
    sessionState(this.deps.store, this.deps.sessionId).set(STATE_WORK_MODE, mode.name);
    this.apply(mode);
    return mode;
  }

  /** Takes up a switch another runner stored (a face's PATCH, another process); true when it did. */
  sync(): boolean {
    const stored = this.set.get(this.stored() ?? '');
    if (!stored || stored.name === this.current.name) return false;
    this.apply(stored);
    return true;
  }

  /** The model-readable refusal of a call to a tool the session has but the mode does not offer. */
  refusal(toolName: string): string | undefined {
    if (this.view.has(toolName) || !this.deps.tools.has(toolName)) return undefined;
    const info = this.deps.tools.get(toolName)!;
    const other = this.set.modes.find((m) => modeOffers(m, info));
    const name = this.current.name;
    const switchHint = other
      ? `if the task needs it, say so: the user can switch with \`/mode ${other.name}\` (or the mode selector), which offers it`
      : 'no work mode offers it';
    return formatError(
      `${toolName} is not available in the "${name}" work mode.`,
      `use the tools this mode offers; ${switchHint}`,
    );
  }

  private stored(): string | undefined {
    return sessionState(this.deps.store, this.deps.sessionId).get(STATE_WORK_MODE);
  }

  private apply(mode: WorkMode): void {
    this.current = mode;
    const { tools, settings, policy } = this.deps;
    this.view = mode.tools.includes('*') ? tools : tools.view((info) => modeOffers(mode, info));
    policy.mode = mode.permissionMode ?? settings.permissionMode;
    this.writePrompt();
  }

  private writePrompt(): void {
    const { settings, cwd, policy } = this.deps;
    this.promptFor = policy.mode;
    this.prompt = sessionSystemPrompt(settings, cwd, this.view, {
      permissionMode: policy.mode,
      workMode: this.current,
    });
  }

  /** The mode's preloaded tools it offers (sent with every request beside the core tier). */
  get preload(): string[] {
    return (this.current.preload ?? []).filter((n) => this.view.has(n));
  }
}

/**
 * Work modes: what kind of work a session is doing (design, develop, test, review,
 * docs, devops, or one the user defines). A mode is three things the session applies
 * together: a prompt layer (one line in the L0 system message), the tools the model is
 * offered and may call, and the permission mode the session switches to. Permission
 * modes (read-only / ask / auto-edit / yolo) stay a separate, finer control: a user
 * may change one after a mode switch, and it holds until the next switch.
 *
 * A mode's `tools` are selectors: `*` (every tool), `read` (the tools that change
 * nothing: `readOnly`), a category (`files`, `exec`, `git`, `web`, …), a tool name,
 * or a glob over names (`git_*`, `mcp__github__*`).
 */
import type { PermissionMode } from '../tools/permissions.js';
import type { ToolInfo } from '../tools/types.js';

export interface WorkMode {
  readonly name: string;
  /** One line for pickers and `GET /v1/modes`. */
  readonly description: string;
  /** The prompt layer, after `Work mode: <name> — ` in the system message. */
  readonly prompt: string;
  /** Selectors of the tools offered and callable (see the module comment). */
  readonly tools: readonly string[];
  /**
   * Tools whose schemas go with every request beside the core tier (when the mode
   * offers them): what the mode reaches for first, without a `tool_search`.
   */
  readonly preload?: readonly string[];
  /** The permission mode a switch to this mode sets; absent: the configured one (`permissions.mode`). */
  readonly permissionMode?: PermissionMode;
}

/** The default mode: today's behaviour, every tool under the configured permission mode. */
export const DEFAULT_WORK_MODE = 'develop';

/** The read-only work of design and review: reading, searching, planning, remembering, asking. */
const LOOK = ['read', 'interaction', 'memory', 'skills', 'agents'];

/**
 * The built-in modes, in the order Shift+Tab cycles them (the seed's six phases).
 * - design, review: read-only tools plus todo/plan/ask/memory and sub-agents, under
 *   `read-only` (what they produce is a plan or findings, never a change; sub-agents
 *   inherit that ceiling).
 * - develop: every tool under the configured permission mode (exactly today's Tea).
 * - test: develop's tools and permissions, with a layer that puts tests first.
 * - docs: reading plus file writes and edits, no shell or process tools, under
 *   `auto-edit` (its only side effects are workspace file edits, which /undo reverts).
 * - devops: every tool, the shell and background-process tools offered first, under
 *   `ask` (commands there touch services and machines: each one is approved).
 */
export const BUILTIN_WORK_MODES: readonly WorkMode[] = [
  {
    name: 'design',
    description: 'Study the code and plan a change; nothing is edited or run',
    prompt:
      'Study the code and the constraints, compare options with their trade-offs, and write the plan down (plan, todo_write). Do not change files or run commands; end with the design and the open questions.',
    tools: LOOK,
    preload: ['tree', 'glob', 'plan'],
    permissionMode: 'read-only',
  },
  {
    name: 'develop',
    description: 'Build and change code with every tool (the default)',
    prompt: 'Build what is asked: read, edit, run and verify the code in small steps.',
    tools: ['*'],
  },
  {
    name: 'test',
    description: 'Write, run and fix tests',
    prompt:
      'Put tests first: find what is untested, write tests that can fail, run them, and report each failure with its cause. Change the code under test only when asked.',
    tools: ['*'],
  },
  {
    name: 'review',
    description: 'Review code and diffs and report findings; nothing is changed',
    prompt:
      'Review, do not change: read the code and its diffs (git_diff, git_log), and report bugs, risks and unclear parts, each with file:line, severity and a suggested fix.',
    tools: LOOK,
    preload: ['git_status', 'git_diff', 'glob'],
    permissionMode: 'read-only',
  },
  {
    name: 'docs',
    description: 'Write and edit documentation; no shell',
    prompt:
      'Write and improve documentation: check every statement against the code, keep examples runnable, and match the project’s style. There is no shell in this mode.',
    tools: ['read', 'files', 'interaction', 'memory', 'skills'],
    preload: ['glob'],
    permissionMode: 'auto-edit',
  },
  {
    name: 'devops',
    description: 'Builds, services, deployments and processes; every command is approved',
    prompt:
      'Operate the system: builds, services, deployments, CI and environments. Check the state before changing it, prefer reversible steps, and run long jobs in the background (bg_start, bg_output).',
    tools: ['*'],
    preload: ['bg_start', 'bg_output'],
    permissionMode: 'ask',
  },
];

/** Whether one selector picks the tool. */
export function selects(selector: string, info: Pick<ToolInfo, 'name' | 'category' | 'readOnly'>): boolean {
  if (selector === '*') return true;
  if (selector === 'read') return info.readOnly === true;
  if (selector === info.name || selector === info.category) return true;
  if (!selector.includes('*')) return false;
  const re = new RegExp(`^${selector.split('*').map(escapeRegExp).join('.*')}$`);
  return re.test(info.name);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether the mode offers the tool. */
export function modeOffers(mode: WorkMode, info: Pick<ToolInfo, 'name' | 'category' | 'readOnly'>): boolean {
  return mode.tools.some((s) => selects(s, info));
}

/** The system message's line for the mode. */
export function modeLine(mode: WorkMode): string {
  return `Work mode: ${mode.name} — ${mode.prompt}`;
}

/**
 * The modes a runtime offers: the built-in ones (each possibly overridden) and the
 * user's, in cycling order, and the one new sessions start in.
 */
export class WorkModeSet {
  private readonly byName: ReadonlyMap<string, WorkMode>;

  constructor(
    readonly modes: readonly WorkMode[] = BUILTIN_WORK_MODES,
    readonly defaultMode: string = DEFAULT_WORK_MODE,
  ) {
    this.byName = new Map(modes.map((m) => [m.name, m]));
    if (!this.byName.has(defaultMode)) throw new Error(`unknown default work mode "${defaultMode}"`);
  }

  get(name: string): WorkMode | undefined {
    return this.byName.get(name);
  }

  get names(): string[] {
    return this.modes.map((m) => m.name);
  }

  /** The mode after `name` in cycling order (Shift+Tab), wrapping around. */
  next(name: string): WorkMode {
    const i = this.modes.findIndex((m) => m.name === name);
    return this.modes[(i + 1) % this.modes.length]!;
  }

  /** An error for a name that is not a mode, listing the ones there are. */
  unknown(name: string): Error {
    return new Error(`unknown work mode "${name}": use one of ${this.names.join(', ')}`);
  }
}

/** The built-in set (sessions of an agent whose settings name none). */
export const BUILTIN_MODE_SET = new WorkModeSet();

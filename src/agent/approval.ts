import {
  callFacts,
  type PermissionDecision,
  type PermissionPolicy,
  type PermissionRule,
} from '../tools/permissions.js';
import type { Authorization } from '../tools/run.js';
import type { Tool } from '../tools/types.js';
import type { AgentEvent } from './events.js';
import type { SessionServices } from './host.js';
import { InteractionCancelled } from './interactions.js';
import { sessionState } from './session-state.js';

export const STATE_GRANTS = 'permission_grants';

export interface ApprovalContext {
  policy: PermissionPolicy;
  services: SessionServices;
  callId: string;
  args: Record<string, unknown>;
  signal: AbortSignal;
  emit: (e: AgentEvent) => void;
  /** The workspace and extra roots the call runs in (shell redirections are checked against them). */
  where?: { cwd?: string; roots?: readonly string[] };
}

function label(tool: Tool, subject: string | undefined): string {
  return subject
    ? `${tool.name} (${subject.length > 120 ? `${subject.slice(0, 119)}…` : subject})`
    : tool.name;
}

/** Quoted for a POSIX shell, so the flag can be pasted as it is (a `'` in a path included). */
const allowFlag = (rule: string): string => `--allow '${rule.replaceAll("'", `'\\''`)}'`;

/** A shell line's rerun flags (every command's `--allow`, and a mode when one is needed). */
function shellFlags(rerun: NonNullable<PermissionDecision['rerun']>): string {
  const mode = rerun.mode === undefined ? [] : [`--permission-mode ${rerun.mode}`];
  return [...mode, ...rerun.allow.map(allowFlag)].join(' ');
}

/** An `--allow` rule that would let this call run without asking, if one would. */
function ruleHint(tool: Tool, subject: string | undefined): string {
  if (!subject) return tool.name;
  const head = subject.split(/\s+/).slice(0, 2).join(' ');
  return `${tool.name}:${tool.approval === 'exec' ? `${head}*` : subject}`;
}

/**
 * For a call read-only mode refused (not a deny rule): the flags of a run that lets it
 * through. Writes run in auto-edit; a command runs in ask mode with an `--allow` for it
 * (a shell line: for each of its commands, and auto-edit when it writes files).
 */
function looserMode(
  tool: Tool,
  subject: string | undefined,
  decision: PermissionDecision,
): string | undefined {
  if (!decision.reason.startsWith('read-only mode')) return undefined;
  // A shell line: the flags that let all of it run (checked), else only --yolo.
  if (decision.part !== undefined)
    return decision.rerun ? `${shellFlags(decision.rerun)} or --yolo` : '--yolo';
  if (tool.approval === 'write') return '--permission-mode auto-edit';
  if (tool.approval !== 'exec') return undefined;
  return `--permission-mode ask ${allowFlag(ruleHint(tool, subject))} or --yolo`;
}

/** The refusal when a call needs approval and nobody can give it. */
function unanswerable(tool: Tool, subject: string | undefined, decision: PermissionDecision): string {
  if (decision.part === undefined) {
    const rerun = `${allowFlag(ruleHint(tool, subject))} or --yolo`;
    return (
      `[DENIED] ${label(tool, subject)} needs the user's approval, and nobody can approve in this run.\n` +
      `Hint: say what you would have run; the user can rerun with ${rerun}.`
    );
  }
  // A shell line: the flags that let all of it run (checked), else only --yolo.
  const rerun = decision.rerun ? `${shellFlags(decision.rerun)} or --yolo` : '--yolo';
  const rewrite = decision.rerun ? '' : 'write the command without that part, or ';
  return (
    `[DENIED] ${label(tool, subject)} needs the user's approval (${decision.reason}), and nobody can approve in this run.\n` +
    `Hint: ${rewrite}say what you would have run; the user can rerun with ${rerun}.`
  );
}

/**
 * Applies the approval policy to one validated call: allow, deny, or ask the user
 * through the face (an `approval_request` event answered via `Session.approve`).
 */
export async function authorize(
  tool: Tool,
  parsedArgs: unknown,
  ctx: ApprovalContext,
): Promise<Authorization> {
  const facts = callFacts(tool, parsedArgs, ctx.where);
  const subject = facts.subject;
  const decision = await ctx.policy.decide(facts);
  if (decision.action === 'allow') return { allowed: true };
  if (decision.action === 'deny') {
    const rerun = ctx.policy.mode === 'read-only' ? looserMode(tool, subject, decision) : undefined;
    const hint = rerun
      ? `do not retry this call; say what you would have done; the user can rerun with ${rerun}.`
      : 'do not retry this call; find another way or tell the user what you need.';
    return {
      allowed: false,
      status: 'denied',
      output: `[DENIED] ${label(tool, subject)} is not allowed here (${decision.reason}).\nHint: ${hint}`,
    };
  }
  if (!ctx.services.interactions.canAsk) {
    return { allowed: false, status: 'denied', output: unanswerable(tool, subject, decision) };
  }
  let requestId = '';
  try {
    const reply = await ctx.services.interactions.wait(
      'approval',
      (id) => {
        requestId = id;
        ctx.emit({
          type: 'approval_request',
          requestId: id,
          callId: ctx.callId,
          tool: tool.name,
          args: ctx.args,
          ...(subject === undefined ? {} : { subject }),
          approval: tool.approval,
          reason: decision.reason,
          ...(decision.part === undefined ? {} : { part: decision.part }),
        });
      },
      ctx.signal,
    );
    if (reply.kind !== 'approval') return { allowed: true };
    ctx.emit({
      type: 'approval_result',
      requestId,
      decision: reply.decision,
      ...(reply.message ? { message: reply.message } : {}),
    });
    if (reply.decision === 'always') {
      ctx.policy.grant(facts);
      const grants: readonly PermissionRule[] = ctx.policy.sessionGrants;
      sessionState(ctx.services.store, ctx.services.sessionId).set(STATE_GRANTS, [...grants]);
    }
    if (reply.decision !== 'reject') return { allowed: true };
    const why = reply.message?.trim() ? `: ${reply.message.trim()}` : '';
    return {
      allowed: false,
      status: 'denied',
      output: `[DENIED] The user rejected ${label(tool, subject)}${why}\nHint: follow the user's words; do not repeat the call unchanged.`,
    };
  } catch (e) {
    if (e instanceof InteractionCancelled) {
      return {
        allowed: false,
        status: 'cancelled',
        output: `[CANCELLED] ${tool.name}: cancelled while waiting for approval`,
      };
    }
    throw e;
  }
}

/**
 * A session's side of the permission entry point (tools/authorize.ts): it asks
 * through the face that listens — an `approval_request` event answered with
 * `Session.approve` — or, when nobody can answer (`tea -p`), lets the entry point
 * refuse the ask with the flags that would let the call run. "Always" grants are
 * kept in the session's state, so a resumed session still has them.
 */
import { type Asker, authorizeCall, type Permit } from '../tools/authorize.js';
import type { PermissionPolicy, PermissionRule } from '../tools/permissions.js';
import type { Tool } from '../tools/types.js';
import type { AgentEvent } from './events.js';
import type { SessionHost } from './host.js';
import { InteractionCancelled } from './interactions.js';
import { sessionState } from './session-state.js';

export const STATE_GRANTS = 'permission_grants';

export interface ApprovalContext {
  policy: PermissionPolicy;
  host: SessionHost;
  callId: string;
  args: Record<string, unknown>;
  signal: AbortSignal;
  emit: (e: AgentEvent) => void;
  /** The workspace and extra roots the call runs in (shell redirections are checked against them). */
  where?: { cwd?: string; roots?: readonly string[] };
}

/** Asks the session's face: an `approval_request` event, then its `approval_result`. */
function sessionAsker(ctx: ApprovalContext): Asker {
  return {
    async ask({ tool, facts, verdict }) {
      let requestId = '';
      try {
        const reply = await ctx.host.interactions.wait(
          'approval',
          (id) => {
            requestId = id;
            const rule = ctx.policy.grantRule(facts);
            ctx.emit({
              type: 'approval_request',
              requestId: id,
              callId: ctx.callId,
              tool: tool.name,
              args: ctx.args,
              ...(facts.subject === undefined ? {} : { subject: facts.subject }),
              approval: tool.approval,
              reason: verdict.reason,
              ...(verdict.part === undefined ? {} : { part: verdict.part }),
              always: { tool: rule.tool, ...(rule.pattern === undefined ? {} : { subject: rule.pattern }) },
            });
          },
          ctx.signal,
        );
        if (reply.kind !== 'approval') return { decision: 'reject', message: 'not an approval' };
        ctx.emit({
          type: 'approval_result',
          requestId,
          decision: reply.decision,
          ...(reply.message ? { message: reply.message } : {}),
        });
        return { decision: reply.decision, ...(reply.message ? { message: reply.message } : {}) };
      } catch (e) {
        if (e instanceof InteractionCancelled) return { decision: 'cancelled' };
        throw e;
      }
    },
  };
}

/**
 * Applies the approval policy to one validated call: allow, deny, or ask the user
 * through the face (an `approval_request` event answered via `Session.approve`).
 */
export async function authorize(tool: Tool, parsedArgs: unknown, ctx: ApprovalContext): Promise<Permit> {
  const permit = await authorizeCall(tool, parsedArgs, {
    policy: ctx.policy,
    where: ctx.where ?? {},
    ...(ctx.host.interactions.canAsk ? { asker: sessionAsker(ctx) } : {}),
  });
  if (permit.allowed && permit.answer === 'always') {
    const grants: readonly PermissionRule[] = ctx.policy.sessionGrants;
    sessionState(ctx.host.store, ctx.host.sessionId).set(STATE_GRANTS, [...grants]);
  }
  return permit;
}

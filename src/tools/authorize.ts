/**
 * The one permission entry point. Every face runs a validated tool call through
 * `authorizeCall`: the call is described (`describeCall`), checked against the policy
 * (`PermissionPolicy.check`), and an "ask" goes to the face's `Asker`. A face that
 * cannot ask (`tea -p`, the HTTP tool route, `tea mcp serve`) gives none, and the ask
 * becomes a refusal in its words, saying how the user can let such calls run.
 */
import { describeCall, type Where } from './describe.js';
import type { PermissionDecision, PermissionMode, PermissionPolicy } from './permissions.js';
import type { CallFacts, Tool } from './types.js';

/** A face's answer to an ask: the user's decision, or the turn ended while waiting. */
export type AskAnswer =
  | { decision: 'once' | 'always' | 'reject'; message?: string }
  | { decision: 'cancelled' };

export interface AskRequest {
  tool: Tool;
  /** The validated arguments. */
  args: unknown;
  facts: CallFacts;
  /** The policy's `ask`, with its reason (and for a shell line the part that needs approval). */
  verdict: PermissionDecision;
}

/** How a face asks the user about one call (a session: an `approval_request` event, answered through `Session.approve`). */
export interface Asker {
  ask(request: AskRequest): Promise<AskAnswer>;
}

/** A call that needs approval where nobody can give it. */
export interface Unanswerable {
  tool: Tool;
  facts: CallFacts;
  verdict: PermissionDecision;
  /** The call as refusals name it: `write_file (notes.txt)`. */
  label: string;
  /** Flags that would let it run (`--allow 'write_file:notes.txt'`); absent when only `--yolo` would. */
  flags?: string;
  /** The same with the last resort: `--allow 'write_file:notes.txt' or --yolo`, or `--yolo` alone. */
  rerun: string;
}

/** What a face that cannot ask says instead; absent parts use the words of `tea -p`. */
export interface FaceWords {
  /** The model-readable refusal of an ask nobody can answer. */
  unanswerable?(r: Unanswerable): string;
  /** How the user lets a refused call run: `the user can rerun with <flags>`. */
  remedy?(flags: string): string;
}

export interface AuthorizeOptions extends FaceWords {
  policy: PermissionPolicy;
  where: Where;
  /** Absent: nobody can answer here, and an ask is refused (`unanswerable`). */
  asker?: Asker;
}

/** The outcome; a refusal carries the call's result (`[DENIED] …` / `[CANCELLED] …`). */
export type Permit =
  | { allowed: true; facts: CallFacts; verdict: PermissionDecision; answer?: 'once' | 'always' }
  | {
      allowed: false;
      status: 'denied' | 'cancelled';
      output: string;
      facts: CallFacts;
      verdict: PermissionDecision;
      /** Set when the user said no (rather than the policy, or nobody). */
      answer?: 'reject';
    };

/** The call as refusals and prompts name it: the tool and its subject, cut at 120 characters. */
export function callLabel(tool: string, subject: string | undefined): string {
  return subject ? `${tool} (${subject.length > 120 ? `${subject.slice(0, 119)}…` : subject})` : tool;
}

/** Quoted for a POSIX shell, so the flag can be pasted as it is (a `'` in a path included). */
export const allowFlag = (rule: string): string => `--allow '${rule.replaceAll("'", `'\\''`)}'`;

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

/** The flags that let an asked call run; undefined when only `--yolo` would (a shell line nothing else covers). */
function askFlags(tool: Tool, facts: CallFacts, verdict: PermissionDecision): string | undefined {
  if (verdict.part === undefined) return allowFlag(ruleHint(tool, facts.subject));
  return verdict.rerun ? shellFlags(verdict.rerun) : undefined;
}

/**
 * For a call read-only mode refused (not a deny rule): the flags of a run that lets it
 * through. Writes run in auto-edit; a command runs in ask mode with an `--allow` for it
 * (a shell line: for each of its commands, and auto-edit when it writes files).
 */
function looserMode(tool: Tool, facts: CallFacts, verdict: PermissionDecision): string | undefined {
  if (!verdict.reason.startsWith('read-only mode')) return undefined;
  if (verdict.part !== undefined) return verdict.rerun ? `${shellFlags(verdict.rerun)} or --yolo` : '--yolo';
  if (tool.approval === 'write') return '--permission-mode auto-edit';
  if (tool.approval !== 'exec') return undefined;
  return `--permission-mode ask ${allowFlag(ruleHint(tool, facts.subject))} or --yolo`;
}

/**
 * What a later run needs for a refused call to run, as flags (`--allow 'bash:npm test*'
 * or --yolo`, `--permission-mode auto-edit`): for an ask, and for a refusal by read-only
 * mode. Undefined when no flag would do (a deny rule).
 */
export function letItRun(
  tool: Tool,
  facts: CallFacts,
  verdict: PermissionDecision,
  mode: PermissionMode,
): string | undefined {
  if (verdict.action === 'ask') {
    const flags = askFlags(tool, facts, verdict);
    return flags ? `${flags} or --yolo` : '--yolo';
  }
  return verdict.action === 'deny' && mode === 'read-only' ? looserMode(tool, facts, verdict) : undefined;
}

const rerunWith = (flags: string): string => `the user can rerun with ${flags}`;

/** The words of `tea -p` (and of any session nobody can answer in). */
function unanswerableInRun(r: Unanswerable, remedy: (flags: string) => string): string {
  if (r.verdict.part === undefined) {
    return (
      `[DENIED] ${r.label} needs the user's approval, and nobody can approve in this run.\n` +
      `Hint: say what you would have run; ${remedy(r.rerun)}.`
    );
  }
  const rewrite = r.flags ? '' : 'write the command without that part, or ';
  return (
    `[DENIED] ${r.label} needs the user's approval (${r.verdict.reason}), and nobody can approve in this run.\n` +
    `Hint: ${rewrite}say what you would have run; ${remedy(r.rerun)}.`
  );
}

/** The refusal of a call the policy does not allow. */
function deniedText(
  label: string,
  verdict: PermissionDecision,
  rerun: string | undefined,
  remedy: (flags: string) => string,
): string {
  const hint = rerun
    ? `do not retry this call; say what you would have done; ${remedy(rerun)}.`
    : 'do not retry this call; find another way or tell the user what you need.';
  return `[DENIED] ${label} is not allowed here (${verdict.reason}).\nHint: ${hint}`;
}

/**
 * Decides one validated call: allowed, refused by the policy, or asked about through
 * the face (refused when the face cannot ask). "Always" adds a session grant to the
 * policy. Never throws for a refusal: the refusal is the call's result.
 */
export async function authorizeCall(tool: Tool, args: unknown, opts: AuthorizeOptions): Promise<Permit> {
  const facts = await describeCall(tool, args, opts.where);
  const verdict = await opts.policy.check(facts);
  if (verdict.action === 'allow') return { allowed: true, facts, verdict };
  const remedy = opts.remedy ?? rerunWith;
  const refuse = (output: string, status: 'denied' | 'cancelled' = 'denied', rejected = false): Permit => ({
    allowed: false,
    status,
    output,
    facts,
    verdict,
    ...(rejected ? { answer: 'reject' as const } : {}),
  });
  const label = callLabel(tool.name, facts.subject);
  const rerun = letItRun(tool, facts, verdict, opts.policy.mode);
  if (verdict.action === 'deny') return refuse(deniedText(label, verdict, rerun, remedy));
  if (!opts.asker) {
    const flags = askFlags(tool, facts, verdict);
    const r: Unanswerable = {
      tool,
      facts,
      verdict,
      label,
      rerun: rerun ?? '--yolo',
      ...(flags === undefined ? {} : { flags }),
    };
    return refuse(opts.unanswerable ? opts.unanswerable(r) : unanswerableInRun(r, remedy));
  }
  const answer = await opts.asker.ask({ tool, args, facts, verdict });
  if (answer.decision === 'cancelled')
    return refuse(`[CANCELLED] ${tool.name}: cancelled while waiting for approval`, 'cancelled');
  if (answer.decision === 'always') opts.policy.grant(facts);
  if (answer.decision !== 'reject') return { allowed: true, facts, verdict, answer: answer.decision };
  const why = answer.message?.trim() ? `: ${answer.message.trim()}` : '';
  return refuse(
    `[DENIED] The user rejected ${label}${why}\nHint: follow the user's words; do not repeat the call unchanged.`,
    'denied',
    true,
  );
}

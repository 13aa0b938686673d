/**
 * What a session does with a new prompt before any model call: run the tool a rule
 * names, refuse it with a message (a rule's usage error, a user rule naming no tool,
 * no model configured for a prompt no rule answers), or go on to the model.
 */
import type { ToolRegistry } from '../../tools/registry.js';
import type { AgentEvent } from '../events.js';
import type { ToolRuleMatch } from './grammar.js';
import { describeRules, matchRule, type RuleSettings } from './match.js';

export type PromptPlan =
  | { kind: 'rule'; match: ToolRuleMatch }
  | { kind: 'refuse'; error: string; message: string }
  | { kind: 'model' };

export interface PlanInput {
  input: string;
  /** A retry runs the stored last message again: always the model's. */
  retry: boolean;
  rules: RuleSettings;
  tools: Pick<ToolRegistry, 'has' | 'names'>;
  /** Set when no model is configured: how to configure one (prompts no rule answers get it). */
  noModel: string | undefined;
}

export function planPrompt(p: PlanInput): PromptPlan {
  const match = p.retry ? undefined : matchRule(p.input, p.rules);
  if (match?.kind === 'usage') return { kind: 'refuse', error: 'rule_usage', message: match.message };
  if (match) {
    if (p.tools.has(match.tool)) return { kind: 'rule', match };
    const names = p.tools.names();
    const close = names.filter((n) => n.includes(match.tool) || match.tool.includes(n)).slice(0, 5);
    const hint = close.length > 0 ? ` Did you mean ${close.join(', ')}?` : '';
    return {
      kind: 'refuse',
      error: 'rule_unknown_tool',
      message: `${match.rule}: the rule names the tool \`${match.tool}\`, which does not exist here.${hint} Fix: set its \`tool:\` to a name \`tea tools\` lists.`,
    };
  }
  if (p.noModel !== undefined)
    return { kind: 'refuse', error: 'no_model', message: `${p.noModel}\n\n${describeRules(p.rules)}` };
  return { kind: 'model' };
}

/** A refused prompt's events: the error, then `done` (nothing is stored, no model is asked). */
export function* refusePrompt(
  sessionId: string,
  refusal: Extract<PromptPlan, { kind: 'refuse' }>,
): Generator<AgentEvent> {
  const { error: kind, message } = refusal;
  yield { type: 'error', kind, message };
  const usage = { inputTokens: 0, outputTokens: 0 };
  yield { type: 'done', sessionId, reason: 'error', text: '', message, usage, costUsd: 0 };
}

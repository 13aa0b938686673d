/** The rule-engine fast path: explicit commands that run one tool without a model call. */
export {
  MAX_RULE_INPUT,
  matchBuiltin,
  RULE_CALL_PREFIX,
  RULE_COMMANDS,
  type RuleCommand,
  type RuleMatch,
  ruleLine,
  SHELL_RULE,
  splitWords,
  type ToolRuleMatch,
  type UsageRuleMatch,
} from './grammar.js';
export { describeRules, matchRule, NO_RULES, type RuleSettings } from './match.js';
export { type PromptPlan, planPrompt } from './plan.js';
export { compileUserRules, MAX_USER_RULE_INPUT, matchUser, substitute, type UserRule } from './user.js';

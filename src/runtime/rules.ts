/**
 * The rule-engine fast path as faces use it: which prompts a rule answers (print mode
 * opens no model for them), the commands for help texts and slash completion.
 */
export {
  describeRules,
  matchRule,
  RULE_CALL_PREFIX,
  RULE_COMMANDS,
  type RuleCommand,
  type RuleMatch,
  type RuleSettings,
  SHELL_RULE,
} from '../agent/rules/index.js';
export { exitedCommand } from '../tools/shell-status.js';

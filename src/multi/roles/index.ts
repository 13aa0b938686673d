/**
 * Roles for sub-agents: built-ins (analyst, coder, tester, reviewer) and Markdown role
 * files (tea's or Claude Code's format), plus checking a child's structured answer.
 * `load.js` loads zod only for a role with an output schema; `output.js` always does.
 */
export { BUILTIN_ROLES } from './builtin.js';
export { roleDirs } from './dirs.js';
export { loadRoles } from './load.js';
export { type OutputCheck, outputChecker, repairPrompt } from './output.js';
export { CLAUDE_TOOLS, DELEGATION_TOOLS } from './tool-names.js';
export type { LoadRolesOptions, Role, RoleSet } from './types.js';

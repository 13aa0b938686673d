/** What a face that edits files for the agent (an editor over ACP) writes with: atomic writes, tool errors. */
export { writeFileAtomic } from '../tools/builtin/atomic-write.js';
export { ToolError } from '../tools/types.js';

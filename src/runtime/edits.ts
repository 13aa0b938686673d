/** What a file-changing tool call would do, for faces that show it before approving it. */
export { unifiedDiff } from '../tools/builtin/diff-text.js';
export { FILE_WRITERS, type ProposedEdit, proposedChange, proposedDiff } from '../tools/proposed.js';
export { resolvePath } from '../tools/workspace.js';

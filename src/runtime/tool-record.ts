/** What faces use of the one tool-call record: its result text, whether it ended, and how a call looks. */
export { contentText, isFinished } from '../store/tool-record.js';
export { loadForTitles, toolKind, toolTitle } from '../tools/call-info.js';

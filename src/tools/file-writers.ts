/**
 * The tools that change exactly one file, named by their `path` argument: their change
 * can be previewed as a diff of that file, and the journal captures just that file.
 */
export const FILE_WRITERS: ReadonlySet<string> = new Set(['write_file', 'append_file', 'edit_file']);

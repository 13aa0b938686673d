/** Limits for the file tools beyond the shared built-in ones; tests shrink them. */
import { type BuiltinOptions, withDefaults } from './options.js';

export interface FileToolOptions extends BuiltinOptions {
  /** read_file: images larger than this are refused (default 5 MB). */
  readImageMaxBytes?: number;
  /** read_many_files: characters per file when max_chars_per_file is not given (default 8 000). */
  readManyMaxCharsPerFile?: number;
  /** edit_file, apply_patch, diff_files: characters of unified diff shown (default 8 000). */
  diffMaxChars?: number;
  /** tree: entries shown when max_entries is not given (default 300). */
  treeMaxEntries?: number;
  /** tree: files counted inside a directory that is not expanded, before giving up (default 10 000). */
  treeCountLimit?: number;
  /** file_info: text files up to this size get a line count (default 20 MB). */
  infoMaxLineCountBytes?: number;
  /** glob: directory entries read before the walk stops (default 200 000). */
  globMaxScan?: number;
  /** edit_file, apply_patch, replace_in_files: larger files are refused (they are held in memory; default 10 MB). */
  editMaxFileBytes?: number;
}

/** The largest file edit_file, apply_patch and replace_in_files change (10 MB). */
export const EDIT_MAX_FILE_BYTES = 10 * 1024 * 1024;

export const FILE_DEFAULTS = {
  readImageMaxBytes: 5 * 1024 * 1024,
  readManyMaxCharsPerFile: 8000,
  diffMaxChars: 8000,
  treeMaxEntries: 300,
  treeCountLimit: 10_000,
  infoMaxLineCountBytes: 20 * 1024 * 1024,
  editMaxFileBytes: EDIT_MAX_FILE_BYTES,
  globMaxScan: 200_000,
} as const satisfies Required<Omit<FileToolOptions, keyof BuiltinOptions>>;

export type ResolvedFileOptions = Required<FileToolOptions>;

export function withFileDefaults(opts: FileToolOptions = {}): ResolvedFileOptions {
  const given: FileToolOptions = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
  return { ...withDefaults(opts), ...FILE_DEFAULTS, ...given };
}

/** The flags of the top-level `tea [prompt]` command. */
export interface PromptFlags {
  print?: boolean;
  outputFormat: 'text' | 'json' | 'stream-json';
  model?: string;
  profile?: string;
  continue?: boolean;
  resume?: string;
  maxTurns?: number;
  cwd?: string;
  verbose?: boolean;
  /** read-only | ask | auto-edit | yolo */
  permissionMode?: string;
  yolo?: boolean;
  /** Rules `tool` or `tool:pattern` (allow), or `deny:tool:pattern`. */
  allow?: string[];
  /** Extra directories file tools may use. */
  addDir?: string[];
}

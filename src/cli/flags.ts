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
}

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
  /** `--work-mode`: design | develop | test | review | docs | devops, or one from config. */
  workMode?: string;
  /** read-only | ask | auto-edit | yolo */
  permissionMode?: string;
  yolo?: boolean;
  /** Rules `tool` or `tool:pattern` (allow), or `deny:tool:pattern`. */
  allow?: string[];
  /** Extra directories file tools may use. */
  addDir?: string[];
  /** `--sandbox`: where shell tools run (overrides the config's `sandbox`). */
  sandbox?: 'auto' | 'on' | 'off';
  /** `--plain`: the plain line prompt instead of the full-screen terminal UI. */
  plain?: boolean;
}

/** What `commandFlags` needs of a commander command (kept structural so this file stays import-free). */
interface FlagSource {
  opts(): Record<string, unknown>;
  getOptionValueSource(key: string): string | undefined;
  parent: FlagSource | null;
}

/**
 * A subcommand's flags merged with its ancestors' (`tea --yolo serve` and `tea serve
 * --yolo` alike): a value given on the command line wins over a default, and the
 * subcommand's own over an ancestor's. Commander's `optsWithGlobals` lets an
 * ancestor's default (say `allow: []`) overwrite what the subcommand was given.
 */
export function commandFlags<T>(command: FlagSource): T {
  const chain: FlagSource[] = [];
  for (let c: FlagSource | null = command; c !== null; c = c.parent) chain.unshift(c);
  const out: Record<string, unknown> = {};
  const given = new Set<string>();
  for (const cmd of chain) {
    for (const [key, value] of Object.entries(cmd.opts())) {
      const explicit = cmd.getOptionValueSource(key) !== 'default';
      if (explicit || !given.has(key)) out[key] = value;
      if (explicit) given.add(key);
    }
  }
  return out as T;
}

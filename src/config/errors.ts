import { homedir } from 'node:os';

export interface ConfigErrorDetails {
  /** The config file at fault (absolute path), when there is one. */
  file?: string;
  /** The dotted key at fault, e.g. `main_model.context_window`. */
  key?: string;
  /** What the key should hold, e.g. `a positive integer`. */
  expected?: string;
  /** A concrete fix, phrased as an instruction. */
  fix?: string;
  line?: number;
  column?: number;
}

/**
 * A configuration problem the user must fix. The message names the file, the
 * key, what was expected, what was found and how to fix it, e.g.
 * `~/.tea/config.yaml: main_model.context_window: expected a positive integer, got "big". Fix: ...`
 */
export class ConfigError extends Error {
  file?: string;
  key?: string;
  expected?: string;
  fix?: string;
  line?: number;
  column?: number;

  constructor(message: string, details: ConfigErrorDetails = {}) {
    super(message);
    this.name = 'ConfigError';
    this.file = details.file;
    this.key = details.key;
    this.expected = details.expected;
    this.fix = details.fix;
    this.line = details.line;
    this.column = details.column;
  }
}

/** Shows a path the way a user thinks of it: the home directory as `~`. */
export function displayPath(file: string): string {
  const home = homedir();
  if (home && home !== '/' && (file === home || file.startsWith(`${home}/`))) {
    return `~${file.slice(home.length)}`;
  }
  return file;
}

/** Builds the standard one-line message for a bad value and returns the error. */
export function badValue(
  details: ConfigErrorDetails & { key: string; expected: string },
  got: string,
  extra = '',
): ConfigError {
  const where = details.file ? `${displayPath(details.file)}: ` : '';
  const fix = details.fix ? ` Fix: ${details.fix}` : '';
  return new ConfigError(
    `${where}${details.key}: expected ${details.expected}, got ${got}.${fix}${extra}`,
    details,
  );
}

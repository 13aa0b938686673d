/**
 * Programs that reach the network, as a command line names them, for the sandbox's
 * "network is off" note when a command failed without saying why (`curl -s`).
 */

interface NetTool {
  /** The command words, e.g. `curl`, `npm install`. */
  words: RegExp;
  /** Exit codes that mean the network could not be reached (curl's 6 and 7, wget's 4…). */
  codes: readonly number[];
}

/**
 * Where a command starts: the line's start or a separator (`;`, `&&`, `|`, `(`, `$(`,
 * a backtick, a quote as in `bash -c 'curl …'`), then wrappers (`sudo -E`, `env X=1`,
 * `timeout 5`, `xargs`…) and a directory (`/usr/bin/`). `grep curl` does not run curl.
 */
const COMMAND_START =
  '(?:^|[;&|(`\'"\\n])\\s*(?:(?:sudo|env|command|exec|time|nohup|xargs|timeout\\s+\\S+|[A-Za-z_]\\w*=\\S*|-\\S+)\\s+)*(?:[^\\s;&|()]*/)?';

/** `name` (a regex alternative) run as a command, with one of the `sub` commands when given. */
function tool(name: string, sub?: string, codes: readonly number[] = []): NetTool {
  // Options may come between: `npm --prefix app install`, `git -C repo fetch`.
  const tail = sub ? `\\s+(?:[^\\s;&|()]+\\s+)*?(${sub})` : '';
  return { words: new RegExp(`${COMMAND_START}(${name})${tail}(?![\\w.-])`), codes };
}

const TOOLS: readonly NetTool[] = [
  // curl: 5 proxy not resolved, 6 host not resolved, 7 could not connect, 28 timed out.
  tool('curl', undefined, [5, 6, 7, 28]),
  // wget: 4 network failure.
  tool('wget', undefined, [4]),
  // ssh and friends: 255 when the connection fails.
  tool('ssh', undefined, [255]),
  tool('scp', undefined, [255]),
  tool('sftp', undefined, [255]),
  tool('rsync', undefined, [10, 12, 255]),
  tool('(?:nc|ncat|netcat|telnet|ftp|ping|dig|nslookup)'),
  tool('git', 'clone|fetch|pull|push|ls-remote|submodule', [128]),
  tool('(?:npm|pnpm)', 'install|i|ci|add|update|publish|view|info'),
  tool('yarn', 'add|install|upgrade'),
  tool('npx'),
  tool('(?:pip|pip3|python3?\\s+-m\\s+pip)', 'install|download'),
  tool('uv', 'pip|add|sync|tool'),
  tool('poetry', 'install|add|update'),
  tool('go', 'get|mod|install'),
  tool('cargo', 'install|fetch|add|update'),
  tool('(?:gem|bundle|brew)', 'install'),
  tool('composer', 'install|require|update'),
  tool('(?:apt|apt-get)', 'update|install'),
  tool('docker', 'pull|push|login'),
];

export interface NetworkMention {
  /** The words that name it, without options: `curl`, `npm install`, `python -m pip install`. */
  name: string;
  /**
   * The network rule pattern to suggest: `curl *`, `npm install*`. It covers the plain
   * form; a line with other commands, wrappers (sudo) or options before the subcommand
   * needs more (see permissions), hence "for matching commands" in the note.
   */
  pattern: string;
  codes: readonly number[];
}

/** The network programs `command` runs, in order of first mention (none: empty). */
export function networkTools(command: string): NetworkMention[] {
  const found: { at: number; mention: NetworkMention }[] = [];
  for (const t of TOOLS) {
    const m = t.words.exec(command);
    if (!m?.[1]) continue;
    // `npm --prefix x install` is `npm install`: the program and its subcommand, options left out.
    const name = [m[1].replace(/\s+/g, ' '), m[2]].filter(Boolean).join(' ');
    const pattern = m[2] ? `${name}*` : `${name} *`;
    found.push({ at: m.index, mention: { name, pattern, codes: t.codes } });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.mention);
}

/** Whether `output` shows, as a number of its own, an exit code that means "no network" for `mention`. */
export function printsFailureCode(output: string, mention: NetworkMention): boolean {
  return mention.codes.some((code) => new RegExp(`(?<![\\w.])${code}(?![\\w.])`).test(output));
}

/**
 * Environment assignments in front of a command (`NODE_ENV=test npm test`) are
 * looked through, except for variables that change which program runs or make
 * a program run other code: a search path, a preloaded library, a startup file,
 * interpreter options, a pager or editor, git's and npm's configuration.
 */

import { wordSet } from './word-set.js';

const RISKY_NAMES = wordSet(
  'ENV BASH_ENV IFS SHELL SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND HOME EDITOR VISUAL PAGER ' +
    'BROWSER LESSOPEN LESSCLOSE PERL5OPT PERL5LIB PERLLIB RUBYOPT RUBYLIB PYTHONSTARTUP ' +
    'PYTHONHOME PYTHONINSPECT NODE_OPTIONS NODE_REPL_EXTERNAL_MODULE JAVA_TOOL_OPTIONS ' +
    '_JAVA_OPTIONS JDK_JAVA_OPTIONS TERMINFO XDG_CONFIG_HOME XDG_DATA_HOME SSH_ASKPASS ' +
    'SUDO_ASKPASS TMPDIR',
);

const RISKY_PATTERNS = [
  /PATH$/, // PATH, LD_LIBRARY_PATH, NODE_PATH, PYTHONPATH, CDPATH, GCONV_PATH, …
  /^LD_/,
  /^DYLD_/,
  /^GIT_/,
  /^NPM_CONFIG_/i,
  /^(YARN|PNPM|BUN|CARGO|RUSTC|RUSTUP|GO|PIP|UV|POETRY|DOCKER|KUBE|MAVEN|GRADLE)_/,
  /^BASH_FUNC_/,
  /OPTIONS$/,
  /_OPTS$/,
  /PAGER$/,
  /EDITOR$/,
  /COMMAND$/,
  /SHELL$/,
  /^PROMPT/,
  /PRELOAD/,
  /CONFIG/,
  /^COMP_/,
];

/** True when setting `name` for one command can change which program runs or make it run other code. */
export function isRiskyEnvName(name: string): boolean {
  if (RISKY_NAMES.has(name)) return true;
  return RISKY_PATTERNS.some((re) => re.test(name));
}

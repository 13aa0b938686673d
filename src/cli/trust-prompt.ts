/**
 * The interactive `tea` asks once about a project config file that holds settings
 * only a trusted file may make; the answer is remembered for the file's exact
 * content (yes: they apply; no: they stay ignored and Tea does not ask again until
 * the file changes). Non-interactive faces never ask: they warn and ignore.
 */
import { displayPath } from '../config/errors.js';
import { loadConfig } from '../config/load.js';
import { recordTrustDecision } from '../config/trust-store.js';
import { settingLines, trustBlocker } from './trust-cmd.js';

/** Asks one question; undefined when the terminal closed instead (Ctrl-C, Ctrl-D). */
export type AskLine = (question: string) => Promise<string | undefined>;

/**
 * How the question went: `none` (nothing to ask), `told` (the user was shown the
 * file's settings and what became of them: trusted, declined, or not trustable as
 * it is), `closed` (the terminal closed instead of an answer).
 */
export type TrustOutcome = 'none' | 'told' | 'closed';

/**
 * Asks whether to trust the project config in force for `cwd` when it needs it.
 * A file that would stop Tea once trusted (see `trustBlocker`) is not offered:
 * the user is told why, and nothing is recorded.
 */
export async function confirmProjectTrust(
  cwd: string,
  ask: AskLine,
  out: NodeJS.WritableStream,
): Promise<TrustOutcome> {
  const config = await loadConfig({ cwd, detectOllama: false });
  const project = config.project;
  if (!project || project.restricted.length === 0) return 'none';
  if (project.state === 'trusted' || project.state === 'denied') return 'none';
  const file = displayPath(project.file);
  const head =
    project.state === 'changed'
      ? `${file} has changed since you trusted it. It sets:`
      : `This project's config, ${file}, sets what only a config you trust may set:`;
  out.write(`${head}\n${settingLines(project.restricted)}`);
  const blocker = await trustBlocker(cwd);
  if (blocker) {
    out.write(
      'It cannot be trusted as it is: once applied, it would stop Tea with this error:\n' +
        `  ${blocker.message}\n` +
        `These settings stay ignored. Fix the file, then run \`tea trust\` in ${displayPath(project.dir)}.\n`,
    );
    return 'told';
  }
  out.write(
    'A repository you did not write could use these to send your prompts or API keys elsewhere,\n' +
      'hand secrets to commands, start programs or loosen permissions.\n',
  );
  const answer = await ask(
    'Trust this file and apply them? Remembered until the file changes (`tea trust --revoke` undoes a yes). [y/N] ',
  );
  if (answer === undefined) return 'closed';
  const yes = /^\s*y(es)?\s*$/i.test(answer);
  recordTrustDecision(config.home, project.file, project.sha256, yes ? 'trusted' : 'denied');
  out.write(
    yes
      ? 'Trusted.\n'
      : `Not trusted: these settings stay ignored, and Tea will not ask again until the file changes (run \`tea trust\` in ${displayPath(project.dir)} if you change your mind).\n`,
  );
  return 'told';
}

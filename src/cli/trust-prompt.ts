/**
 * The interactive `tea` asks once about a project config file that holds settings
 * only a trusted file may make; the answer is remembered for the file's exact
 * content (yes: they apply; no: they stay ignored and Tea does not ask again until
 * the file changes). Non-interactive faces never ask: they warn and ignore.
 */
import { displayPath } from '../config/errors.js';
import { loadConfig } from '../config/load.js';
import { recordTrustDecision } from '../config/trust-store.js';
import { settingLines } from './trust-cmd.js';

/** Asks one question; undefined when the terminal closed instead (Ctrl-C, Ctrl-D). */
export type AskLine = (question: string) => Promise<string | undefined>;

/**
 * Asks whether to trust the project config in force for `cwd` when it needs it.
 * Resolves false when the user closed the prompt instead of answering.
 */
export async function confirmProjectTrust(
  cwd: string,
  ask: AskLine,
  out: NodeJS.WritableStream,
): Promise<boolean> {
  const config = await loadConfig({ cwd, detectOllama: false });
  const project = config.project;
  if (!project || project.restricted.length === 0) return true;
  if (project.state === 'trusted' || project.state === 'denied') return true;
  const head =
    project.state === 'changed'
      ? `${displayPath(project.file)} has changed since you trusted it. It sets:`
      : `This project's config, ${displayPath(project.file)}, sets what only a config you trust may set:`;
  out.write(
    `${head}\n${settingLines(project.restricted)}` +
      'A repository you did not write could use these to send your prompts or API keys elsewhere,\n' +
      'hand secrets to commands, start programs or loosen permissions.\n',
  );
  const answer = await ask(
    'Trust this file and apply them? Remembered until the file changes (`tea trust --revoke` undoes a yes). [y/N] ',
  );
  if (answer === undefined) return false;
  const yes = /^\s*y(es)?\s*$/i.test(answer);
  recordTrustDecision(config.home, project.file, project.sha256, yes ? 'trusted' : 'denied');
  out.write(
    yes
      ? 'Trusted.\n'
      : 'Not trusted: these settings stay ignored (run `tea trust` here if you change your mind).\n',
  );
  return true;
}

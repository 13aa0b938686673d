/**
 * `tea evolve prompts …`: prompt versions from the command line. Texts go to stdout
 * (so `show` pipes into a file and `set` reads it back); what happened goes to stderr.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isatty } from 'node:tty';
import type { PromptError } from '../evolve/prompts/errors.js';
import type { PromptVersionInfo } from '../evolve/prompts/service.js';
import type { EvolveService } from '../runtime/evolve-service.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { CliError, EXIT, UsageError } from './exit.js';
import { jsonText } from './json-out.js';
import { readStdin } from './stdin.js';
import { VERSION } from './version.js';

export interface EvolveFlags {
  cwd?: string;
  json?: boolean;
  days?: number;
  promote?: number;
  note?: string;
  force?: boolean;
}

/** The runtime without a model check: only `evolve` needs one, and says so itself. */
export async function evolveRuntime(flags: EvolveFlags): Promise<Runtime> {
  return createRuntime({
    ...(flags.cwd !== undefined ? { cwd: flags.cwd } : {}),
    clientInfo: { name: 'tea-agent', version: VERSION },
  });
}

const isPromptError = (e: unknown): e is PromptError => e instanceof Error && e.name === 'PromptError';

/** Runs `fn` on the evolve service; a PromptError becomes one clear line and its exit code. */
export async function withEvolve(
  flags: EvolveFlags,
  fn: (service: EvolveService, rt: Runtime) => Promise<number> | number,
): Promise<number> {
  const rt = await evolveRuntime(flags);
  try {
    return await fn(await rt.evolve(), rt);
  } catch (e) {
    if (!isPromptError(e)) throw e;
    switch (e.code) {
      case 'unchanged':
        process.stderr.write(`tea: nothing changed: ${e.message}\n`);
        return EXIT.OK;
      case 'not_found':
      case 'invalid':
        throw new UsageError(e.message);
      case 'no_model':
        throw new CliError(e.message, EXIT.NO_MODEL);
      default:
        throw new CliError(e.message, EXIT.ERROR);
    }
  } finally {
    await rt.close({ exiting: true });
  }
}

function when(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
}

/** One line of what a version is. */
export function describe(v: PromptVersionInfo): string {
  const note = v.note ? `: ${v.note}` : '';
  return `version ${v.version} (${v.status}, ${v.source}, ${v.words} words${v.stored ? '' : ', built in'})${note}`;
}

function parseVersion(text: string): number {
  const t = text.trim().replace(/^v/i, '');
  if (!/^\d{1,9}$/.test(t) || Number(t) < 1)
    throw new UsageError(
      `"${text.slice(0, 40)}" is not a prompt version: give its number (tea evolve prompts list shows them)`,
    );
  return Number(t);
}

export function listPrompts(flags: EvolveFlags): Promise<number> {
  return withEvolve(flags, ({ prompts }) => {
    const list = prompts.list();
    if (flags.json) {
      process.stdout.write(jsonText(list));
      return EXIT.OK;
    }
    process.stdout.write('  version  status     source   words  created           note\n');
    for (const v of [...list].reverse()) {
      const mark = v.status === 'active' ? '*' : ' ';
      process.stdout.write(
        `${mark} ${String(v.version).padEnd(7)}  ${v.status.padEnd(9)}  ${v.source.padEnd(7)}  ${String(v.words).padStart(5)}  ${when(v.createdAt).padEnd(16)}  ${v.note ?? (v.source !== 'builtin' ? '' : v.stored ? 'the built-in text' : 'the built-in text (nothing else was set)')}\n`,
      );
    }
    const candidates = list.filter((v) => v.status === 'candidate');
    if (candidates.length > 0)
      process.stdout.write(
        `\n${candidates.length} candidate${candidates.length === 1 ? '' : 's'} unused until set: tea evolve prompts diff ${prompts.active().version} ${candidates.at(-1)!.version}; tea evolve prompts set --promote ${candidates.at(-1)!.version}\n`,
      );
    return EXIT.OK;
  });
}

export function showPrompt(version: string | undefined, flags: EvolveFlags): Promise<number> {
  return withEvolve(flags, ({ prompts }) => {
    const v = prompts.get(version === undefined ? undefined : parseVersion(version));
    if (flags.json) {
      process.stdout.write(jsonText(v));
      return EXIT.OK;
    }
    process.stderr.write(`${describe(v)}\n`);
    process.stdout.write(`${v.content}\n`);
    return EXIT.OK;
  });
}

export function diffPrompts(a: string, b: string | undefined, flags: EvolveFlags): Promise<number> {
  return withEvolve(flags, ({ prompts }) => {
    const from = parseVersion(a);
    const to = b === undefined ? undefined : parseVersion(b);
    const patch = prompts.diff(from, to);
    if (patch === '')
      process.stderr.write(`versions ${from} and ${to ?? prompts.active().version} are the same\n`);
    else process.stdout.write(patch);
    return EXIT.OK;
  });
}

/** The new version's text: the file, or stdin for `-` or when piped. */
async function newText(file: string | undefined): Promise<string> {
  if (file === undefined || file === '-') {
    if (file === undefined && isatty(0))
      throw new UsageError(
        'give the new text: a file (tea evolve prompts set prompt.md), or pipe it in, or --promote <version>',
      );
    return readStdin();
  }
  try {
    return readFileSync(path.resolve(file), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : String(code);
    throw new UsageError(`cannot read ${file}: ${why}`);
  }
}

export async function setPrompt(file: string | undefined, flags: EvolveFlags): Promise<number> {
  if (flags.promote !== undefined && file !== undefined)
    throw new UsageError('give a file or --promote <version>, not both');
  const text = flags.promote === undefined ? await newText(file) : undefined;
  return withEvolve(flags, ({ prompts }) => {
    const before = prompts.active();
    const v = text === undefined ? prompts.activate(flags.promote!) : prompts.set(text, flags);
    if (v.version === before.version) {
      process.stderr.write(`${describe(v)} is the active version already\n`);
      return EXIT.OK;
    }
    // Rollback follows the version's parent: it goes back here only when the parent is the one replaced.
    const back =
      v.parentVersion === before.version
        ? 'tea evolve prompts rollback'
        : `tea evolve prompts set --promote ${before.version}`;
    process.stderr.write(
      `${describe(v)} is now active: sessions started from now on use it (was version ${before.version}; ${back} goes back)\n`,
    );
    return EXIT.OK;
  });
}

export function rollbackPrompt(version: string | undefined, flags: EvolveFlags): Promise<number> {
  return withEvolve(flags, ({ prompts }) => {
    const { from, to } = prompts.rollback(version === undefined ? undefined : parseVersion(version));
    process.stderr.write(`${describe(to)} is active again (was version ${from.version})\n`);
    return EXIT.OK;
  });
}

export function evolvePrompts(flags: EvolveFlags): Promise<number> {
  return withEvolve(flags, async (service) => {
    const active = service.prompts.active();
    const outcome = await service.evolvePrompt({ ...(flags.days ? { days: flags.days } : {}) });
    if (flags.json) {
      process.stdout.write(jsonText(outcome));
      return EXIT.OK;
    }
    const c = outcome.candidate;
    process.stdout.write(service.prompts.diff(active.version, c.version));
    process.stderr.write(
      `candidate ${describe(c)} stored; it is not used until you set it: tea evolve prompts set --promote ${c.version}\n` +
        `(${outcome.usage.inputTokens} tokens in, ${outcome.usage.outputTokens} out on ${outcome.model})\n`,
    );
    return EXIT.OK;
  });
}

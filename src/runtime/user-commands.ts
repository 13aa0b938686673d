/**
 * User commands: Markdown prompt templates a user keeps in `.tea/commands/*.md` (the
 * project's, which win) and `TEA_HOME/commands/*.md` (the user's). `/name args` expands
 * the file's body with the arguments and sends it to the model. Every face offers them
 * (the terminal UI's slash commands, ACP's `available_commands_update`), so listing and
 * expanding live here, below the faces.
 *
 * The folders are the user's own, but a cloned project's `.tea/commands` is not: a
 * file that is a link out of its folder, too big, binary, or badly named is skipped
 * with one warning that names the file and the fix, never loaded half-way.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, type Stats, statSync } from 'node:fs';
import path from 'node:path';
import type { splitFrontmatter } from '../config/frontmatter.js';

/** One user command, ready to list and expand. */
export interface UserCommand {
  /** Lower case, without the slash; a subfolder gives `folder:name`. */
  name: string;
  description: string;
  /** Shown after the name while completing, e.g. `<issue number>`. */
  argumentHint?: string;
  /** The template: `$ARGUMENTS` and `$1`…`$9` are replaced when it runs. */
  body: string;
  /** The file it came from (absolute). */
  file: string;
  scope: 'project' | 'user';
}

export interface UserCommandsOptions {
  /** The workspace: its `.tea/commands` is read. */
  cwd: string;
  /** The Tea home: its `commands` folder is read. */
  home: string;
  /** Built-in command names (and aliases): a user command of such a name is hidden, with a warning. */
  reserved?: readonly string[];
  warn?: (message: string) => void;
}

/** A template bigger than this is not a prompt template; it is skipped. */
export const MAX_COMMAND_BYTES = 64 * 1024;
/** Folders below a commands folder that are read (`a/b/name.md` is `a:b:name`). */
export const MAX_COMMAND_DEPTH = 3;
/** At most this many files per commands folder are looked at. */
export const MAX_COMMAND_FILES = 500;

/** One name segment: letters (any script) or digits first, then letters, digits, `_` or `-`. */
const SEGMENT = /^[\p{L}\p{N}][\p{L}\p{N}_-]{0,63}$/u;

/** The commands folders of a workspace, project first (its commands win). */
export function commandDirs(cwd: string, home: string): Array<{ dir: string; scope: 'project' | 'user' }> {
  return [
    { dir: path.join(cwd, '.tea', 'commands'), scope: 'project' },
    { dir: path.join(home, 'commands'), scope: 'user' },
  ];
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

interface Found {
  file: string;
  segments: string[];
}

/** The `.md` files under `root` (links that stay inside it followed), depth-limited. */
function listFiles(root: string, warn: (m: string) => void): Found[] {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
    if (!statSync(realRoot).isDirectory()) return [];
  } catch {
    return [];
  }
  const out: Found[] = [];
  const walk = (dir: string, segments: string[]): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const entry of names) {
      if (out.length >= MAX_COMMAND_FILES) return;
      const full = path.join(dir, entry);
      let st: Stats;
      try {
        st = lstatSync(full);
        if (st.isSymbolicLink()) {
          const real = realpathSync(full);
          if (!isInside(realRoot, real)) {
            if (entry.endsWith('.md') || statSync(real).isDirectory())
              warn(
                `user command ${full} skipped: it is a link to ${real}, outside ${root}; copy the file into the folder instead`,
              );
            continue;
          }
          st = statSync(real);
        }
      } catch {
        continue; // a dangling link or a file removed meanwhile
      }
      if (st.isDirectory()) {
        if (entry.startsWith('.')) continue;
        if (segments.length + 1 > MAX_COMMAND_DEPTH) {
          warn(
            `user command folder ${full} skipped: commands are read at most ${MAX_COMMAND_DEPTH} folders deep`,
          );
          continue;
        }
        walk(full, [...segments, entry]);
      } else if (st.isFile() && entry.endsWith('.md')) {
        out.push({ file: full, segments: [...segments, entry.slice(0, -3)] });
      }
    }
  };
  walk(realRoot === root ? root : realRoot, []);
  return out;
}

/** The first words of the body, for a command without a `description`. */
function firstLine(body: string): string {
  const line = body.split('\n').find((l) => l.trim() !== '') ?? '';
  const text = line.replace(/^#+\s*/, '').trim();
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

type Parsed = { ok: true; command: Omit<UserCommand, 'scope'> } | { ok: false; why: string };

/** The frontmatter splitter (YAML), loaded only when a file has frontmatter: it stays off the start-up path. */
type Split = typeof splitFrontmatter;

const FRONTMATTER = /^(?:\uFEFF)?---[ \t]*\r?\n/;

/** One file as a command, or why it is not one (with the fix). */
export function parseCommandFile(
  file: string,
  segments: readonly string[],
  raw: Buffer,
  split?: Split,
): Parsed {
  const bad = segments.find((s) => !SEGMENT.test(s));
  if (bad !== undefined)
    return {
      ok: false,
      why: `its name part "${bad}" is not a command name; name files and folders with letters, digits, "-" and "_" only (e.g. review-pr.md)`,
    };
  if (raw.length > MAX_COMMAND_BYTES)
    return {
      ok: false,
      why: `it has ${raw.length} bytes, more than ${MAX_COMMAND_BYTES}; keep a prompt template short and point it at files instead`,
    };
  if (raw.includes(0))
    return { ok: false, why: 'it holds NUL bytes (a binary file?); save it as UTF-8 text' };
  const text = raw
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n');
  let body = text.trim();
  let description: string | undefined;
  let argumentHint: string | undefined;
  if (/^---[ \t]*\n/.test(text)) {
    if (!split) throw new Error('parseCommandFile: a file with frontmatter needs the splitter');
    const fm = split(text);
    if (!fm.ok) return { ok: false, why: `its frontmatter is not ${fm.expected} (${fm.got}); ${fm.fix}` };
    body = fm.body;
    for (const [key, value] of Object.entries(fm.data)) {
      if (key !== 'description' && key !== 'argument-hint') continue;
      if (typeof value !== 'string')
        return { ok: false, why: `its frontmatter key \`${key}\` is not text; write \`${key}: some words\`` };
      if (key === 'description') description = value.trim();
      else argumentHint = value.trim();
    }
  }
  if (body === '') return { ok: false, why: 'its body is empty; write the prompt below the frontmatter' };
  return {
    ok: true,
    command: {
      name: segments.map((s) => s.toLowerCase()).join(':'),
      description: description || firstLine(body),
      ...(argumentHint ? { argumentHint } : {}),
      body,
      file,
    },
  };
}

/**
 * The user commands of a workspace, by name: the project's win over the user's, built-in
 * names win over both (one warning each). Bad files are skipped with one warning each.
 */
export async function loadUserCommands(opts: UserCommandsOptions): Promise<UserCommand[]> {
  const warn = opts.warn ?? (() => {});
  const reserved = new Set(opts.reserved ?? []);
  const byName = new Map<string, UserCommand>();
  const files: Array<{ found: Found; scope: 'project' | 'user'; raw: Buffer }> = [];
  for (const { dir, scope } of commandDirs(opts.cwd, opts.home)) {
    for (const found of listFiles(dir, warn)) {
      try {
        files.push({ found, scope, raw: readFileSync(found.file) });
      } catch (e) {
        warn(`user command ${found.file} skipped: ${(e as Error).message}`);
      }
    }
  }
  const needsYaml = files.some(
    (f) => f.raw.length <= MAX_COMMAND_BYTES && FRONTMATTER.test(f.raw.toString('utf8', 0, 16)),
  );
  const split = needsYaml ? (await import('../config/frontmatter.js')).splitFrontmatter : undefined;
  for (const { found, scope, raw } of files) {
    const parsed = parseCommandFile(found.file, found.segments, raw, split);
    if (!parsed.ok) {
      warn(`user command ${found.file} skipped: ${parsed.why}`);
      continue;
    }
    const { name } = parsed.command;
    if (reserved.has(name)) {
      warn(`user command ${found.file} is hidden by the built-in /${name}; rename the file to use it`);
      continue;
    }
    const held = byName.get(name);
    if (held) {
      // The project's folder is read first: its command wins over the user's silently.
      if (held.scope === scope)
        warn(
          `user command ${found.file} skipped: /${name} is already defined by ${held.file}; rename one of them`,
        );
      continue;
    }
    byName.set(name, { ...parsed.command, scope });
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Splits arguments on white space; "double" or 'single' quotes keep spaces inside one argument. */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(args); m !== null; m = re.exec(args)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

/**
 * The prompt a command sends: `$ARGUMENTS` becomes all the arguments as typed and `$1`…`$9`
 * the positional ones (empty when missing). One pass: text an argument brings in is never
 * expanded again. A template that uses neither gets the arguments appended.
 */
export function expandUserCommand(body: string, args: string): string {
  const all = args.trim();
  const positional = splitArguments(all);
  let used = false;
  const out = body.replace(/\$(ARGUMENTS|[1-9])/g, (_m, key: string) => {
    used = true;
    return key === 'ARGUMENTS' ? all : (positional[Number(key) - 1] ?? '');
  });
  return used || all === '' ? out : `${out}\n\n${all}`;
}

/** `/name args` when `name` is one of `commands`: the command and its argument text. */
export function matchUserCommand(
  text: string,
  commands: readonly UserCommand[],
): { command: UserCommand; args: string } | undefined {
  const m = /^\/([^\s/]+)(?:\s+([\s\S]*))?$/u.exec(text.trim());
  if (!m?.[1]) return undefined;
  const name = m[1].toLowerCase();
  const command = commands.find((c) => c.name === name);
  return command ? { command, args: (m[2] ?? '').trim() } : undefined;
}

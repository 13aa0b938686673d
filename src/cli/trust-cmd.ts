/**
 * `tea trust`: the user's say over a project's `.tea/config.yaml`. Until trusted,
 * a project file cannot choose model endpoints or keys, MCP servers, env_allow or
 * looser permissions (see config/screen.ts). Trust is recorded in the data home
 * for the project directory and the file's exact content: an edit suspends it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, displayPath } from '../config/errors.js';
import { CONFIG_FILE, findProjectConfig, teaHome } from '../config/files.js';
import { loadConfig } from '../config/load.js';
import {
  readTrustRecords,
  recordTrustDecision,
  revokeTrust,
  type TrustRecord,
} from '../config/trust-store.js';
import type { RestrictedSetting } from '../config/types.js';
import { workspaceDir } from '../runtime/directories.js';
import { CliError, EXIT, UsageError } from './exit.js';
import { jsonText } from './json-out.js';

export interface TrustFlags {
  cwd?: string;
  list?: boolean;
  revoke?: boolean;
  json?: boolean;
}

/** The restricted settings, one per line, indented. */
export function settingLines(settings: readonly RestrictedSetting[]): string {
  return settings.map((s) => `  ${s.key}: ${s.value}\n`).join('');
}

const shortHash = (sha256: string): string => sha256.slice(0, 12);

/**
 * The dry run of trusting the project config in force for `cwd`: the error loading
 * it as it would be once trusted gives (say a `main_model` that names an endpoint
 * but no model), or undefined when it loads. A file that fails this must not be
 * trusted: every command, offline ones too, would stop with that error.
 */
export async function trustBlocker(cwd: string): Promise<ConfigError | undefined> {
  try {
    await loadConfig({ cwd, detectOllama: false, asIfTrusted: true });
    return undefined;
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
}

async function trustHere(flags: TrustFlags): Promise<number> {
  const cwd = workspaceDir(flags.cwd);
  const config = await loadConfig({ cwd, detectOllama: false });
  const project = config.project;
  if (!project) {
    throw new CliError(
      `no project config to trust: there is no .tea/config.yaml in ${displayPath(cwd)} or above it (up to the git root)`,
      EXIT.USAGE,
    );
  }
  const where = `${displayPath(project.file)} (sha256 ${shortHash(project.sha256)})`;
  if (project.state === 'trusted') {
    process.stdout.write(`${where} is already trusted.\n`);
    return EXIT.OK;
  }
  const blocker = await trustBlocker(cwd);
  if (blocker) {
    throw new CliError(
      `not trusting ${displayPath(project.file)}: once trusted, it would stop every tea command with this error:\n` +
        `${blocker.message}\n` +
        'Nothing was recorded, and its settings stay ignored meanwhile. Fix the file, then run `tea trust` again.',
      EXIT.USAGE,
    );
  }
  recordTrustDecision(config.home, project.file, project.sha256, 'trusted');
  if (project.restricted.length === 0) {
    process.stdout.write(`Trusted ${where}; it holds no settings that need trust.\n`);
  } else {
    process.stdout.write(
      `Trusted ${where}. These settings in it now apply:\n${settingLines(project.restricted)}`,
    );
  }
  process.stdout.write(
    'Any edit of the file suspends this trust until you run `tea trust` again; `tea trust --revoke` withdraws it.\n',
  );
  return EXIT.OK;
}

async function revokeHere(flags: TrustFlags): Promise<number> {
  const cwd = workspaceDir(flags.cwd);
  const home = teaHome(process.env);
  // The file may be gone already: then the project is the directory given.
  const file = findProjectConfig(cwd, join(home, CONFIG_FILE)) ?? join(cwd, '.tea', CONFIG_FILE);
  const removed = revokeTrust(home, file);
  if (removed.some((r) => r.decision === 'trusted')) {
    process.stdout.write(
      `No longer trusting ${displayPath(file)}: its model endpoints, keys, MCP servers, env_allow and looser permissions are ignored again.\n`,
    );
  } else if (removed.length > 0) {
    process.stdout.write(`Forgot that you declined ${displayPath(file)}; interactive tea will ask again.\n`);
  } else {
    process.stdout.write(`${displayPath(file)} was not trusted; nothing to revoke.\n`);
  }
  return EXIT.OK;
}

type Standing = 'current' | 'changed' | 'missing';

function standing(record: TrustRecord): Standing {
  try {
    const sha256 = createHash('sha256').update(readFileSync(record.file)).digest('hex');
    return sha256 === record.sha256 ? 'current' : 'changed';
  } catch {
    return 'missing';
  }
}

function label(record: TrustRecord, now: Standing): string {
  if (record.decision === 'denied') return 'declined';
  return now === 'current' ? 'trusted' : now;
}

function listTrust(flags: TrustFlags): number {
  const records = readTrustRecords(teaHome(process.env));
  const rows = records.map((r) => ({ ...r, standing: standing(r) }));
  if (flags.json) {
    process.stdout.write(jsonText(rows));
    return EXIT.OK;
  }
  if (rows.length === 0) {
    process.stdout.write(
      'No project config is trusted. Run `tea trust` in a project to trust its .tea/config.yaml.\n',
    );
    return EXIT.OK;
  }
  const notes: Record<string, string> = {
    trusted: '',
    changed: '  (edited since: not applied until trusted again)',
    missing: '  (file gone)',
    declined: '  (declined when asked)',
  };
  for (const r of rows) {
    const state = label(r, r.standing);
    const when = r.at.slice(0, 16).replace('T', ' ');
    process.stdout.write(`${state.padEnd(8)}  ${when}  ${displayPath(r.file)}${notes[state] ?? ''}\n`);
  }
  return EXIT.OK;
}

/** `tea trust [--list | --revoke] [--cwd DIR]`. */
export async function trustCommand(flags: TrustFlags): Promise<number> {
  if (flags.list && flags.revoke) throw new UsageError('use --list or --revoke, not both');
  if (flags.json && !flags.list) throw new UsageError('--json goes with --list');
  if (flags.list) return listTrust(flags);
  if (flags.revoke) return revokeHere(flags);
  return trustHere(flags);
}

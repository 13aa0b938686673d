/**
 * `tea tools user list|show|rm|rollback`: the tools the agent wrote for itself, as saved in
 * `TEA_HOME/tools` (each version's source, the current one marked). Reads the files
 * only; nothing is compiled or run.
 */
import { teaHome } from '../config/files.js';
import { compareVersions, type UserToolManifest, UserToolStore } from '../runtime/user-tools.js';
import { EXIT, UsageError } from './exit.js';
import { jsonText } from './json-out.js';
import { didYouMean } from './usage.js';

const store = (): UserToolStore => new UserToolStore(teaHome());

function firstLine(text: string, max = 70): string {
  const s = text.split('\n')[0]!.trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function current(m: UserToolManifest) {
  return m.versions.find((v) => v.version === m.current)!;
}

function warnAll(problems: readonly string[]): void {
  for (const p of problems) process.stderr.write(`tea: warning: ${p}\n`);
}

/** `tea tools user list`: name, current version, approval, how many versions, when last changed. */
export async function listUserTools(opts: { json?: boolean }): Promise<number> {
  const { tools, problems } = store().list();
  warnAll(problems);
  if (opts.json) {
    const rows = tools.map((m) => {
      const c = current(m);
      return {
        name: m.name,
        current: m.current,
        approval: c.approval,
        description: c.description,
        versions: m.versions.map((v) => v.version),
        created: m.created,
        updated: m.updated,
      };
    });
    process.stdout.write(jsonText(rows));
    return EXIT.OK;
  }
  if (tools.length === 0) {
    process.stdout.write(`No user tools in ${store().root} (the agent writes them with tool_create).\n`);
    return EXIT.OK;
  }
  const width = Math.max(...tools.map((m) => m.name.length));
  for (const m of tools) {
    const c = current(m);
    const count = `${m.versions.length} version${m.versions.length === 1 ? '' : 's'}`;
    process.stdout.write(
      `${m.name.padEnd(width)}  ${m.current.padEnd(8)} ${c.approval.padEnd(7)}  ${count.padEnd(11)} ${m.updated.slice(0, 19).replace('T', ' ')}  ${firstLine(c.description)}\n`,
    );
  }
  process.stdout.write(`\n${tools.length} user tool${tools.length === 1 ? '' : 's'} in ${store().root}\n`);
  return EXIT.OK;
}

function unknownTool(name: string): UsageError {
  const names = store()
    .list()
    .tools.map((m) => m.name);
  return new UsageError(
    `no user tool ${JSON.stringify(name)}${didYouMean(name, names)} (tea tools user list shows them)`,
  );
}

/** `tea tools user show <name> [--version v]`: a version's facts and its source. */
export async function showUserTool(
  name: string,
  opts: { version?: string; json?: boolean },
): Promise<number> {
  const s = store();
  const m = s.read(name);
  if (!m) throw unknownTool(name);
  const version = opts.version ?? m.current;
  const entry = m.versions.find((v) => v.version === version);
  if (!entry) {
    const known = m.versions.map((v) => v.version).sort(compareVersions);
    throw new UsageError(`${name} has no version ${JSON.stringify(version)} (saved: ${known.join(', ')})`);
  }
  const source = s.source(name, version);
  if (opts.json) {
    process.stdout.write(jsonText({ ...entry, name, current: version === m.current, source }));
    return EXIT.OK;
  }
  const mark = version === m.current ? ' (current)' : ` (current: ${m.current})`;
  process.stdout.write(
    `${name} ${version}${mark}\n${entry.description}\n\n` +
      `approval: ${entry.approval}   code needs: ${entry.needs}${entry.evidence.length ? ` (${entry.evidence.join('; ')})` : ''}\n` +
      `saved: ${entry.created}   sha256: ${entry.sha256}\n` +
      `versions: ${m.versions.map((v) => (v.version === m.current ? `${v.version}*` : v.version)).join(', ')}\n\n` +
      `${source.endsWith('\n') ? source : `${source}\n`}`,
  );
  return EXIT.OK;
}

/** `tea tools user rm <name>`: removes the tool and every saved version of it (a damaged one too). */
export async function removeUserTool(name: string): Promise<number> {
  const s = store();
  let versions = '';
  try {
    const m = s.read(name);
    if (m) versions = ` (${m.versions.length} version${m.versions.length === 1 ? '' : 's'})`;
  } catch (e) {
    versions = ` (it could not be read: ${(e as Error).message})`;
  }
  if (!s.remove(name)) throw unknownTool(name);
  process.stdout.write(`Removed ${name}${versions}.\n`);
  return EXIT.OK;
}

/**
 * `tea tools user rollback <name> <version>`: makes a saved version current again (the
 * model's `tool_rollback` does the same). Its code is checked against its hashes and
 * class when it next loads, as every saved tool's is.
 */
export async function rollbackUserTool(name: string, version: string): Promise<number> {
  const s = store();
  if (!s.read(name)) throw unknownTool(name);
  let before: UserToolManifest;
  try {
    before = s.setCurrent(name, version).before;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const was = before.current === version ? ' (it already was)' : ` (was ${before.current})`;
  process.stdout.write(
    `${name} ${version} is current${was}; the next tea command uses it (a running tea serve, once restarted).\n`,
  );
  return EXIT.OK;
}

/**
 * Whether Tea offers a server its roots (the workspace and the directories added to it).
 *
 * A server such as server-filesystem replaces the directories its arguments name with
 * the client's roots, so offering roots to a server configured with `~/notes` would
 * serve the workspace instead of the notes. The rule:
 * - `roots: true` / `roots: false` in the server's config decides;
 * - a server an editor passed (ACP) was set up by it: no roots;
 * - a stdio server with an argument that is an existing directory (`~/notes`, `.`,
 *   `docs`, `--root=/srv`) keeps it: no roots;
 * - any other server gets them.
 */
import path from 'node:path';
import { isStdioServer, type McpServerConfig } from './types.js';

/** The value of an argument: `--flag=value` gives `value`, other flags nothing. */
function argValue(arg: string): string | undefined {
  if (!arg.startsWith('-')) return arg || undefined;
  const eq = arg.indexOf('=');
  return eq > 0 && eq < arg.length - 1 ? arg.slice(eq + 1) : undefined;
}

function expand(value: string, home: string | undefined, cwd: string): string {
  const withHome = home ? value.replace(/^~(?=$|[/\\])/, home) : value;
  return path.resolve(cwd, withHome);
}

/** Whether the arguments of a stdio server name a directory that exists. */
export async function argsNameDirectory(
  args: readonly string[],
  cwd: string,
  home: string | undefined,
): Promise<boolean> {
  const { stat } = await import('node:fs/promises');
  for (const arg of args) {
    const value = argValue(arg);
    if (value === undefined) continue;
    const found = await stat(expand(value, home, cwd)).catch(() => undefined);
    if (found?.isDirectory()) return true;
  }
  return false;
}

/** Decides whether `server` is offered roots; `cwd` is where its relative arguments resolve. */
export async function offersRoots(
  server: McpServerConfig,
  cwd: string,
  home = process.env.HOME,
): Promise<boolean> {
  if (server.roots !== undefined) return server.roots;
  if (server.from === 'client') return false;
  if (isStdioServer(server)) return !(await argsNameDirectory(server.args ?? [], cwd, home));
  return true;
}

/**
 * When a sandboxed program runs into the sandbox, a line that says what the sandbox
 * did, so the model (and the user reading along) do not mistake it for a broken
 * machine. Notes come from evidence only: a hidden path named in the command or the
 * output, "Read-only file system", a network error while the network is off, or a
 * network program (curl, git clone…) that failed without saying why (`curl -s`).
 */
import { homedir } from 'node:os';
import { type NetworkMention, networkTools, printsFailureCode } from './net-tools.js';
import type { Launch } from './sandbox.js';

const READ_ONLY = /Read-only file system|\bEROFS\b|could not (?:write|lock) config file .*\.git\/config/;
const NO_NETWORK =
  /Could not resolve host|Temporary failure in name resolution|getaddrinfo|\bEAI_AGAIN\b|\bENOTFOUND\b|Network is unreachable|\bENETUNREACH\b|Connection refused|\bECONNREFUSED\b|fetch failed|Failed to connect|Couldn't connect|Name or service not known|No route to host/i;

function homeForm(path: string, home: string): string | undefined {
  return path.startsWith(`${home}/`) ? path.slice(home.length + 1) : undefined;
}

/** The hidden paths `text` refers to, as the user would write them. */
function hiddenMentioned(text: string, launch: Launch): string[] {
  const home = homedir();
  const out: string[] = [];
  for (const hidden of launch.sandbox?.hidden ?? []) {
    const rel = homeForm(hidden.path, home);
    const forms = [hidden.path, ...(rel ? [`~/${rel}`, `$HOME/${rel}`, `\${HOME}/${rel}`] : [])];
    if (forms.some((form) => text.includes(form))) out.push(rel ? `~/${rel}` : hidden.path);
  }
  return out;
}

/** A command that echoes an exit status (`curl -s URL; echo rc=$?`). */
const SHOWS_STATUS = /\$\?|\$\{\?\}|PIPESTATUS/;

/**
 * Why the network note applies, if it does: the output says the network failed
 * (`why` empty), or a network program the command names failed quietly: the command
 * exited non-zero, or it echoes `$?` and printed that program's "no network" code.
 */
function networkEvidence(
  command: string,
  output: string,
  exitCode: number | null | undefined,
): { why: string; tool?: NetworkMention } | undefined {
  const tools = networkTools(command);
  if (NO_NETWORK.test(output)) return { why: '', ...(tools[0] ? { tool: tools[0] } : {}) };
  const shown = SHOWS_STATUS.test(command) ? tools.find((t) => printsFailureCode(output, t)) : undefined;
  if (shown) return { why: `, which may be why ${shown.name} failed`, tool: shown };
  const failed = exitCode !== undefined && exitCode !== null && exitCode !== 0;
  if (failed && tools[0]) {
    return { why: `, which may be why ${tools[0].name} failed (exit code ${exitCode})`, tool: tools[0] };
  }
  return undefined;
}

/**
 * Notes for the output of a sandboxed program (empty when nothing points at the
 * sandbox). `command` is what was run; `output` what it printed; `exitCode` how it
 * ended (undefined or null: still running, or killed).
 */
export function sandboxNotes(
  launch: Launch,
  command: string,
  output: string,
  exitCode?: number | null,
): string[] {
  const box = launch.sandbox;
  if (!box) return [];
  const notes: string[] = [];
  const hidden = hiddenMentioned(`${command}\n${output}`, launch);
  if (hidden.length > 0) {
    notes.push(
      `${hidden.join(', ')} ${hidden.length === 1 ? 'is' : 'are'} hidden inside the sandbox: commands cannot read credentials (keys, tokens, Tea's own data); ask the user if it is really needed`,
    );
  }
  if (READ_ONLY.test(output)) {
    const where = box.writable.length > 0 ? box.writable.join(', ') : 'the workspace';
    const git = box.readOnly.length > 0 ? " (but not the repository's .git/hooks and .git/config)" : '';
    notes.push(
      `the sandbox lets commands write only in ${where}${git} and a private /tmp; everything else is read-only. Add a directory with --add-dir or permissions.roots if it must be written`,
    );
  }
  const network = box.network ? undefined : networkEvidence(command, output, exitCode);
  if (network) {
    const pattern = network.tool?.pattern ?? 'npm install*';
    notes.push(
      `network is off inside the sandbox${network.why}. The user can allow it for matching commands with a permission rule { tool: network, pattern: "${pattern}", action: allow } (or --allow 'network:${pattern}'), or for all with \`sandbox: { network: true }\``,
    );
  }
  return notes.map((note) => `Sandbox: ${note}`);
}

/**
 * Where user tools live and what their manifest says. `TEA_HOME/tools/<name>/` holds
 * each version's source as the agent wrote it (`<version>.ts`), the bundle that runs
 * (`<version>.cjs`, see compile.ts), and `manifest.json`: the current version and,
 * per version, the facts the registry needs (description, approval class, keywords,
 * the JSON Schema of the parameters), dates and sha256 hashes. Start-up registers a
 * tool from its manifest alone; this module is on that path, so it reads with plain
 * node:fs and checks shapes by hand (no zod, no compiler).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ApprovalClass } from '../types.js';
import { isApprovalClass } from './classes.js';

/** A user tool's name: lower case, digits and `_`, 2-48 characters, starting with a letter. */
export const NAME_PATTERN = /^[a-z][a-z0-9_]{1,47}$/;
/** `major.minor.patch`, each a number of at most six digits without leading zeros. */
export const VERSION_PATTERN = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;
export const MANIFEST_FILE = 'manifest.json';
/** The largest manifest read (a tool with many versions stays far below it). */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** One saved version: its facts as the registry offers them, and the hashes of its files. */
export interface VersionEntry {
  version: string;
  /** ISO time it was saved. */
  created: string;
  /** sha256 (hex) of `<version>.ts`. */
  sha256: string;
  /** sha256 (hex) of `<version>.cjs`, the bundle that runs. */
  bundleSha256: string;
  description: string;
  approval: ApprovalClass;
  keywords: string[];
  /** The JSON Schema of its parameters, as the model sees it. */
  parameters: Record<string, unknown>;
  /** What the static check found the code needs (at most `approval`), and its evidence. */
  needs: ApprovalClass;
  evidence: string[];
}

export interface UserToolManifest {
  format: 1;
  name: string;
  current: string;
  created: string;
  updated: string;
  /** Oldest first. */
  versions: VersionEntry[];
}

export function toolsRoot(home: string): string {
  return path.join(home, 'tools');
}

export function toolDir(home: string, name: string): string {
  if (!NAME_PATTERN.test(name)) throw new Error(`invalid tool name ${JSON.stringify(name)}`);
  return path.join(toolsRoot(home), name);
}

export function versionFile(home: string, name: string, version: string, ext: 'ts' | 'cjs'): string {
  if (!VERSION_PATTERN.test(version)) throw new Error(`invalid version ${JSON.stringify(version)}`);
  return path.join(toolDir(home, name), `${version}.${ext}`);
}

/** The entry of the current version. */
export function currentEntry(manifest: UserToolManifest): VersionEntry {
  return manifest.versions.find((v) => v.version === manifest.current)!;
}

/**
 * A file's text, refusing a symbolic link (the tools directory holds only files Tea
 * wrote) and anything larger than `max` bytes.
 */
export function readPlainFile(file: string, max: number): string {
  const nofollow = constants.O_NOFOLLOW ?? 0;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | nofollow);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP')
      throw new Error(`${file} is a symbolic link; Tea reads only plain files there`);
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file} is not a plain file`);
    if (st.size > max) throw new Error(`${file} is ${st.size} bytes; at most ${max} are read`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function entryProblem(v: unknown, i: number): string | undefined {
  if (!isRecord(v)) return `versions[${i}] is not an object`;
  if (!isString(v.version) || !VERSION_PATTERN.test(v.version))
    return `versions[${i}].version is not a version`;
  for (const key of ['created', 'sha256', 'bundleSha256', 'description'] as const)
    if (!isString(v[key])) return `versions[${i}].${key} is not a string`;
  if (!/^[0-9a-f]{64}$/.test(v.sha256 as string) || !/^[0-9a-f]{64}$/.test(v.bundleSha256 as string))
    return `versions[${i}] has a malformed sha256`;
  if (!isApprovalClass(v.approval)) return `versions[${i}].approval is not none, write, network or exec`;
  if (!isApprovalClass(v.needs)) return `versions[${i}].needs is not none, write, network or exec`;
  if (!Array.isArray(v.keywords) || !v.keywords.every(isString))
    return `versions[${i}].keywords is not a list of words`;
  if (!Array.isArray(v.evidence) || !v.evidence.every(isString))
    return `versions[${i}].evidence is not a list`;
  if (!isRecord(v.parameters) || v.parameters.type !== 'object')
    return `versions[${i}].parameters is not an object schema`;
  return undefined;
}

/** The manifest in `text` for the tool `name`; throws naming what is wrong with it. */
export function parseManifest(text: string, name: string): UserToolManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`its manifest is not JSON (${(e as Error).message})`);
  }
  if (!isRecord(value) || value.format !== 1) throw new Error('its manifest is not format 1');
  if (value.name !== name) throw new Error(`its manifest names the tool ${JSON.stringify(value.name)}`);
  if (!isString(value.current) || !isString(value.created) || !isString(value.updated))
    throw new Error('its manifest lacks current, created or updated');
  if (!Array.isArray(value.versions) || value.versions.length === 0)
    throw new Error('its manifest lists no versions');
  for (const [i, v] of value.versions.entries()) {
    const problem = entryProblem(v, i);
    if (problem) throw new Error(`its manifest is damaged: ${problem}`);
  }
  const versions = value.versions as VersionEntry[];
  if (new Set(versions.map((v) => v.version)).size !== versions.length)
    throw new Error('its manifest lists a version twice');
  if (!versions.some((v) => v.version === value.current))
    throw new Error(`its manifest's current version ${value.current} is not among its versions`);
  return value as unknown as UserToolManifest;
}

/** The manifest of the tool in `dir` (named `name`); throws naming the problem. */
export function readManifest(dir: string, name: string): UserToolManifest {
  return parseManifest(readPlainFile(path.join(dir, MANIFEST_FILE), MAX_MANIFEST_BYTES), name);
}

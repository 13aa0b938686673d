/**
 * The built-in tool families (one module each, with the files only it uses), how each
 * is built from the options, and which options shape its specs. A family's module is
 * imported by `build`, so it is evaluated only when one of its tools is first loaded.
 */
import type { ToolRegistry } from '../registry.js';
import type { Tool } from '../types.js';
import type { ExecToolOptions } from './exec.js';
import type { FileToolOptions } from './file-options.js';
import type { SearchToolOptions } from './search.js';
import type { SystemToolOptions } from './system-options.js';
import type { WebSearchConfig } from './web-http.js';

/** Options for every built-in family; all limits have defaults. */
export type BuiltinToolOptions = FileToolOptions &
  SearchToolOptions &
  ExecToolOptions & {
    /** web_search provider; absent means search is off. */
    webSearch?: WebSearchConfig;
    /** Extra variable names env_get may read and child processes keep despite scrubbing. */
    envAllow?: string[];
    system?: SystemToolOptions;
  };

export interface Family {
  name: string;
  /**
   * Whether an option that shapes this family's specs (a description, a schema, which
   * tools there are) is set: then its tools are built at once, and otherwise they are
   * known from the catalogue (made with every such option unset) until first used.
   */
  shaped(options: BuiltinToolOptions): boolean;
  /** Its tools as `options` set them up (meta tools list `registry`'s tools). */
  build(options: BuiltinToolOptions, registry: ToolRegistry): Promise<Tool[]>;
}

/** Set: present, and not an empty list (an empty allow-list adds nothing). */
function isSet(value: unknown): boolean {
  return value !== undefined && !(Array.isArray(value) && value.length === 0);
}

/** Whether any of `keys` whose flag is true is set in `options`. */
function anySet<T extends object>(options: object, keys: Record<keyof T, boolean>): boolean {
  const given = options as Record<string, unknown>;
  return Object.entries(keys).some(([key, shapes]) => shapes && isSet(given[key]));
}

// Every option a family reads, and whether it shapes the family's specs (false: it
// only changes how the tools run; test/tools/catalogue.test.ts checks that claim).
// A Record over the options' keys: a new option fails to compile until it is listed.

const LIMITS = {
  readDefaultLimit: true,
  readMaxLineChars: true,
  readMaxChars: true,
  listMaxEntries: true,
  globMaxResults: true,
  bashMaxOutputChars: true,
  bashMaxSavedBytes: true,
  bashKillGraceMs: true,
  bashPipeDrainMs: true,
} as const;

const FILE_OPTIONS: Record<keyof FileToolOptions, boolean> = {
  ...LIMITS,
  readImageMaxBytes: true,
  readManyMaxCharsPerFile: true,
  diffMaxChars: true,
  treeMaxEntries: true,
  treeCountLimit: true,
  infoMaxLineCountBytes: true,
  globMaxScan: true,
  editMaxFileBytes: true,
};

const SEARCH_OPTIONS: Record<keyof SearchToolOptions, boolean> = {
  ...LIMITS,
  grepBackend: true,
  grepMaxPerFile: true,
  findMaxResults: true,
  replaceMaxShown: true,
  replaceMaxFiles: true,
  replaceMaxFileBytes: true,
};

const EXEC_OPTIONS: Record<keyof ExecToolOptions, boolean> = {
  ...LIMITS,
  bashDefaultTimeoutMs: true,
  bashSmartTimeout: true,
  bashSampleMs: true,
  bashIdleGraceMs: true,
  bashMaxFactor: true,
  bgMaxBufferChars: true,
  bgStartPeekMs: true,
  whichVersionTimeoutMs: true,
  // Where programs run and which variables they keep: every face sets these.
  envScrub: false,
  envAllow: false,
  envDenyNames: false,
  envDenyValues: false,
  sandbox: false,
  processManager: false,
  backgroundJobs: false,
};

/** The options the system family reads: its own, and env_get's extra variables (in its description). */
const SYSTEM_OPTIONS: Record<'system' | 'envAllow', boolean> = { system: true, envAllow: true };

const never = (): boolean => false;

/** Every family, in the order its tools are listed. */
export const FAMILIES: readonly Family[] = [
  {
    name: 'files',
    shaped: (o) => anySet<FileToolOptions>(o, FILE_OPTIONS),
    build: async (o) => (await import('./files.js')).fileTools(o),
  },
  {
    name: 'search',
    shaped: (o) => anySet<SearchToolOptions>(o, SEARCH_OPTIONS),
    build: async (o) => (await import('./search.js')).searchTools(o),
  },
  {
    name: 'exec',
    shaped: (o) => anySet<ExecToolOptions>(o, EXEC_OPTIONS),
    build: async (o) => (await import('./exec.js')).execTools(o),
  },
  { name: 'git', shaped: never, build: async () => (await import('./git.js')).gitTools() },
  {
    name: 'web',
    shaped: (o) => isSet(o.webSearch),
    build: async (o) => (await import('./web.js')).webTools(o.webSearch ? { search: o.webSearch } : {}),
  },
  {
    name: 'system',
    shaped: (o) => anySet(o, SYSTEM_OPTIONS),
    build: async (o) =>
      (await import('./system.js')).systemTools({
        ...o.system,
        ...(o.envAllow ? { envAllow: o.envAllow } : {}),
      }),
  },
  { name: 'data', shaped: never, build: async () => (await import('./data.js')).dataTools() },
  {
    name: 'interaction',
    shaped: never,
    build: async () => (await import('./interaction.js')).interactionTools(),
  },
  {
    name: 'meta',
    shaped: never,
    build: async (_o, registry) => (await import('./meta.js')).metaTools(registry),
  },
];

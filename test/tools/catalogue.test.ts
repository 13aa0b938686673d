/**
 * The catalogue of built-in tools (src/tools/builtin/catalogue-data.ts) against the
 * tools' code: it is what the code makes, a registry built from it offers the same specs
 * and facts as building every tool, for the default options and for others, and the
 * options said not to shape specs do not.
 */
import { describe, expect, it } from 'vitest';
import { BackgroundJobs } from '../../src/tools/background-jobs.js';
import { builtinTools } from '../../src/tools/builtin/all.js';
import { buildCatalogue, catalogue, infoOf } from '../../src/tools/builtin/catalogue.js';
import type { BuiltinToolOptions } from '../../src/tools/builtin/families.js';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import { metaTools } from '../../src/tools/builtin/meta.js';
import { ProcessManager } from '../../src/tools/builtin/process-manager.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { Sandbox } from '../../src/tools/sandbox/sandbox.js';

/** Every built-in tool built at once, as the registry was made before the catalogue. */
function eagerRegistry(options: BuiltinToolOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.registerAll(builtinTools(options));
  registry.registerAll(metaTools(registry));
  return registry;
}

/** What a registry offers before any tool runs: its specs as sent (JSON text) and every tool's facts. */
function offered(registry: ToolRegistry): { specs: string; facts: string } {
  return {
    specs: JSON.stringify(registry.specs()),
    facts: JSON.stringify(registry.list().map(infoOf)),
  };
}

const lazyNames = (registry: ToolRegistry): string[] =>
  registry.names().filter((name) => registry.loaded(name) === undefined);

describe('the tool catalogue', () => {
  it('is what the tools make (else: npm run catalogue)', async () => {
    expect(catalogue()).toEqual(await buildCatalogue());
  });

  it('offers the same specs and facts as building every tool, loading none', async () => {
    const lazy = await createToolRegistry();
    expect(offered(lazy)).toEqual(offered(eagerRegistry()));
    expect(lazyNames(lazy)).toEqual(lazy.names());
    expect(lazy.names()).toHaveLength(58);
  });

  it('builds at once, as the options make them, the families whose specs the options shape', async () => {
    const options: BuiltinToolOptions = {
      readDefaultLimit: 5,
      globMaxResults: 7,
      bashDefaultTimeoutMs: 5000,
      webSearch: { provider: 'brave', apiKey: 'k' },
      envAllow: ['MY_VAR'],
    };
    const lazy = await createToolRegistry(options);
    expect(offered(lazy)).toEqual(offered(eagerRegistry(options)));
    expect(lazy.specs(['read_file'])[0]!.description).toContain('(5 from offset');
    expect(lazy.get('env_get')!.description).toContain('MY_VAR');
    // files, search (it reads the shared limits), exec, web and system are built; the rest wait.
    for (const name of ['read_file', 'grep', 'bash', 'web_search', 'env_get'])
      expect(lazy.loaded(name), name).toBeDefined();
    for (const name of ['git_status', 'calculate', 'ask_user', 'tool_search'])
      expect(lazy.loaded(name), name).toBeUndefined();
  });

  it('keeps the exec family lazy under the options every face sets: they do not shape its specs', async () => {
    const options: BuiltinToolOptions = {
      sandbox: new Sandbox({ mode: 'on', network: true }),
      envScrub: false,
      envAllow: [],
      envDenyNames: ['TEA_SECRET'],
      envDenyValues: ['hunter2'],
      processManager: new ProcessManager(),
      backgroundJobs: new BackgroundJobs(),
    };
    const lazy = await createToolRegistry(options);
    expect(offered(lazy)).toEqual(offered(eagerRegistry(options)));
    expect(lazyNames(lazy)).toEqual(lazy.names());
    // Set for real, envAllow shapes env_get (system) but not the exec family.
    const allowed = await createToolRegistry({ ...options, envAllow: ['MY_VAR'] });
    expect(offered(allowed)).toEqual(offered(eagerRegistry({ ...options, envAllow: ['MY_VAR'] })));
    expect(allowed.loaded('bash')).toBeUndefined();
    expect(allowed.loaded('env_get')).toBeDefined();
  });

  it('loads a family once, with the options given, when one of its tools is first loaded', async () => {
    const manager = new ProcessManager();
    const lazy = await createToolRegistry({ processManager: manager });
    const [bash, which] = await Promise.all([lazy.load('bash'), lazy.load('which')]);
    expect(bash?.name).toBe('bash');
    expect((await lazy.load('bg_start'))?.name).toBe('bg_start');
    expect(lazy.loaded('read_file')).toBeUndefined();
    expect(which).toBe(lazy.loaded('which'));
    expect(infoOf(bash!)).toEqual(lazy.get('bash'));
  });
});

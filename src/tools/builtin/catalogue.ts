/**
 * The catalogue of built-in tools: everything the runtime needs of a tool before it is
 * called (its facts and the JSON schema the model reads), for each tool of each family,
 * as the tools are built with no spec-shaping option set (families.ts). It is generated
 * from the tools' code into catalogue-data.ts (`npm run catalogue`; `npm run build`
 * runs it) and checked against that code by test/tools/catalogue.test.ts, so a run
 * offers the same specs as building every tool would, without loading any of them.
 */
import type { ToolSpec } from '../../llm/types.js';
import { usedFeature } from '../../util/code-cache-feature.js';
import { ToolRegistry } from '../registry.js';
import { buildSpec } from '../schema.js';
import type { Tool, ToolInfo } from '../types.js';
import { CATALOGUE_DATA } from './catalogue-data.js';
import { type BuiltinToolOptions, FAMILIES, type Family } from './families.js';

/** One built-in tool in the catalogue: its facts, its family and its parameters' JSON schema. */
export interface CatalogueEntry extends ToolInfo {
  family: string;
  parameters: ToolSpec['parameters'];
}

/** A tool's facts alone, in one order (so two can be compared as JSON). */
export function infoOf(tool: ToolInfo): ToolInfo {
  return {
    name: tool.name,
    description: tool.description,
    category: tool.category,
    ...(tool.keywords === undefined ? {} : { keywords: [...tool.keywords] }),
    readOnly: tool.readOnly,
    concurrencySafe: tool.concurrencySafe,
    approval: tool.approval,
    ...(tool.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }),
    ...(tool.shell === undefined ? {} : { shell: tool.shell }),
  };
}

/** A built tool as the catalogue holds it. */
export function catalogueEntry(tool: Tool, family: string): CatalogueEntry {
  return { ...infoOf(tool), family, parameters: buildSpec(tool).parameters };
}

/** The catalogue generated from the tools' code under the default options (the generator and its test). */
export async function buildCatalogue(): Promise<CatalogueEntry[]> {
  const registry = new ToolRegistry();
  const entries: CatalogueEntry[] = [];
  for (const family of FAMILIES) {
    for (const tool of await family.build({}, registry)) entries.push(catalogueEntry(tool, family.name));
  }
  return entries;
}

/** The lines of catalogue-data.ts: per tool, its facts (with its family) and its parameters' schema, as JSON. */
export function catalogueLines(entries: readonly CatalogueEntry[]): Array<[string, string]> {
  return entries.map(({ parameters, ...facts }) => [JSON.stringify(facts), JSON.stringify(parameters)]);
}

/** A catalogue entry as a run reads it: the facts at once, the schema when first offered. */
export interface Listed {
  facts: ToolInfo & { family: string };
  parameters: string;
}

let listed: Listed[] | undefined;

function listedTools(): Listed[] {
  listed ??= CATALOGUE_DATA.map(([facts, parameters]) => ({ facts: JSON.parse(facts), parameters }));
  return listed;
}

/** The generated catalogue, whole. */
export function catalogue(): CatalogueEntry[] {
  return listedTools().map((l) => ({ ...l.facts, parameters: JSON.parse(l.parameters) }));
}

/** What differs between a tool's facts and its catalogue entry (empty: nothing). */
function differences(tool: Tool, entry: ToolInfo): string[] {
  const built = infoOf(tool) as unknown as Record<string, unknown>;
  const catalogued = infoOf(entry) as unknown as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(built), ...Object.keys(catalogued)])];
  return keys.filter((k) => JSON.stringify(built[k]) !== JSON.stringify(catalogued[k]));
}

/**
 * The family's tools by name, checked against the catalogue: a tool whose facts differ
 * (its code changed after the catalogue was made) is refused rather than run under facts
 * that are not its own.
 */
function checked(family: Family, tools: readonly Tool[], entries: readonly ToolInfo[]): Map<string, Tool> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const stale: string[] = [];
  for (const entry of entries) {
    const tool = byName.get(entry.name);
    if (!tool) stale.push(`${entry.name} is not in the ${family.name} family`);
    else for (const key of differences(tool, entry)) stale.push(`${entry.name}.${key} differs`);
  }
  for (const tool of tools)
    if (!entries.some((e) => e.name === tool.name)) stale.push(`${tool.name} is not in it`);
  if (stale.length > 0) {
    throw new Error(
      `the tool catalogue is out of date (${stale.join('; ')}); regenerate it with npm run catalogue`,
    );
  }
  return byName;
}

/**
 * Registers `family`'s tools on `registry` by their catalogue entries: the family's
 * module is imported, and its tools built, when one of them is first loaded (once for
 * all of them; a failed load is tried again by the next).
 */
export function registerFamily(
  registry: ToolRegistry,
  family: Family,
  options: BuiltinToolOptions,
  entries: readonly Listed[],
): void {
  const facts = entries.map((e) => e.facts);
  let built: Promise<Map<string, Tool>> | undefined;
  const loadFamily = (): Promise<Map<string, Tool>> => {
    if (built === undefined) {
      usedFeature(`tools:${family.name}`);
      built = family.build(options, registry).then((tools) => checked(family, tools, facts));
      built.catch(() => {
        built = undefined;
      });
    }
    return built;
  };
  for (const entry of entries) {
    let parameters: ToolSpec['parameters'] | undefined;
    registry.registerLazy({
      info: infoOf(entry.facts),
      parameters: () => {
        parameters ??= JSON.parse(entry.parameters) as ToolSpec['parameters'];
        return parameters;
      },
      load: async () => (await loadFamily()).get(entry.facts.name)!,
    });
  }
}

/** Catalogue entries as `registerFamily` takes them. */
export function listedEntries(entries: readonly CatalogueEntry[]): Listed[] {
  return catalogueLines(entries).map(([facts, parameters]) => ({ facts: JSON.parse(facts), parameters }));
}

/**
 * Adds every built-in tool to `registry`: by its catalogue entry, its code loaded on
 * first use, for a family none of whose spec-shaping options is set; otherwise built
 * at once, as the options make it.
 */
export async function registerBuiltins(registry: ToolRegistry, options: BuiltinToolOptions): Promise<void> {
  const shaped = FAMILIES.filter((f) => f.shaped(options));
  const built = new Map(
    await Promise.all(shaped.map(async (f) => [f, await f.build(options, registry)] as const)),
  );
  const entries = listedTools();
  for (const family of FAMILIES) {
    const tools = built.get(family);
    if (tools) registry.registerAll(tools);
    else
      registerFamily(
        registry,
        family,
        options,
        entries.filter((e) => e.facts.family === family.name),
      );
  }
}

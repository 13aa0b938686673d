/**
 * What a tool must pass before it is saved: it compiles (esbuild's message, with line
 * and column, when not), its default export has the tool shape, its parameters are an
 * object schema JSON Schema can express, it is not too large.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTool } from '../../../src/tools/user/check.js';
import { MAX_SOURCE_BYTES } from '../../../src/tools/user/compile.js';
import { toolSource } from './helpers.js';

const refusal = async (source: string, name = 'echo_words'): Promise<string> => {
  try {
    await checkTool(name, source);
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
};

describe('checkTool', () => {
  it('accepts a well-formed tool and reports its facts and JSON Schema', async () => {
    const c = await checkTool('echo_words', toolSource({ keywords: ['words', 'count'] }));
    expect(c).toMatchObject({
      description: 'Counts the words of a text.',
      approval: 'none',
      needs: 'none',
      keywords: ['words', 'count'],
      parameters: {
        type: 'object',
        properties: { text: { type: 'string', description: 'The text' } },
        required: ['text'],
      },
    });
    expect(c.bundle).toContain('require("__tea_mod:zod")');
  });

  it("refuses code that does not compile with esbuild's message, line and column", async () => {
    const source = toolSource({ body: 'return args.text +* 2;' });
    const line = source.split('\n').findIndex((l) => l.includes('+*')) + 1;
    const message = await refusal(source);
    expect(message).toMatch(
      new RegExp(`^it does not compile:\\necho_words\\.ts:${line}:\\d+: Unexpected "\\*"`),
    );
    expect(message).toContain(`${line} |     return args.text +* 2;`);
  });

  it('refuses top-level await (CommonJS) with the compiler message', async () => {
    expect(await refusal(toolSource({ head: 'const x = await Promise.resolve(1);' }))).toMatch(
      /Top-level await is currently not supported/,
    );
  });

  it.each([
    ['a date', 'z.object({ when: z.date() })', 'Date cannot be represented in JSON Schema'],
    ['a bigint', 'z.object({ n: z.bigint() })', 'BigInt cannot be represented in JSON Schema'],
    ['a map', 'z.object({ m: z.map(z.string(), z.string()) })', 'cannot be represented in JSON Schema'],
  ])('refuses parameters JSON Schema cannot express (%s)', async (_l, parameters, why) => {
    const message = await refusal(toolSource({ parameters }));
    expect(message).toMatch(/^its parameters cannot be expressed as JSON Schema: /);
    expect(message).toContain(why);
  });

  it.each([
    ['not an object schema', 'z.string()', 'its parameters must be z.object({...}), not z.string(...)'],
    ['not a zod schema', "{ type: 'object', properties: {} }", 'its parameters must be a zod schema'],
  ])('refuses parameters that are %s', async (_l, parameters, why) => {
    expect(await refusal(toolSource({ parameters }))).toContain(why);
  });

  it('names every problem of a wrong default export at once', async () => {
    const source = [
      "import * as z from 'zod';",
      "export default { name: 'other_name', description: '', approval: 'root', keywords: 'x', parameters: z.object({}), run: 3 };",
    ].join('\n');
    const message = await refusal(source);
    expect(message).toContain('its name is "other_name", not "echo_words"');
    expect(message).toContain('its description must be a non-empty string');
    expect(message).toContain(`its approval is "root"; use 'none', 'write', 'network' or 'exec'`);
    expect(message).toContain('its keywords must be a list');
    expect(message).toContain('its run must be a function');
  });

  it('refuses a module with no default export, and one that throws while loading', async () => {
    expect(await refusal('export const tool = 1;')).toMatch(/^the module has no default export object/);
    expect(await refusal(toolSource({ head: "throw new Error('boom at load');" }))).toMatch(
      /^the module threw while loading: boom at load/,
    );
  });

  it('refuses code past the size limit before compiling it', async () => {
    const huge = toolSource({ head: `const pad = ${JSON.stringify('x'.repeat(MAX_SOURCE_BYTES))};` });
    expect(await refusal(huge)).toMatch(/^the code is \d+ bytes; a tool may have at most 65536/);
  });

  it('a module runs under the class its code shows: a hidden fs write at load meets the read-only fs', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-check-'));
    const target = path.join(dir, 'never-written');
    const source = toolSource({
      head: `import * as fs from 'node:fs';\nconst k = ['wr', 'iteFileSync'].join('');\n(fs as any)[k](${JSON.stringify(target)}, 'x');`,
    });
    try {
      expect(await refusal(source)).toMatch(
        /^the module threw while loading: fs writeFileSync needs approval "write"/,
      );
      expect(existsSync(target)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a module declaring less than its code shows is refused before any of it runs', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-check-'));
    const target = path.join(dir, 'never-written');
    const source = toolSource({
      head: `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(target)}, 'x');`,
    });
    try {
      expect(await refusal(source)).toMatch(
        /^it declares approval 'none', but its code needs 'write': fs writeFileSync/,
      );
      expect(existsSync(target)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The example tool in the README passes the checks and does what it says. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTool } from '../../../src/tools/user/check.js';
import { gatesFor } from '../../../src/tools/user/gate.js';
import { definitionOf, evaluate, toolOf, userZod } from '../../../src/tools/user/load.js';

const README = path.resolve(import.meta.dirname, '..', '..', '..', 'README.md');

function example(): string {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('### Tools it writes for itself'));
  return /```ts\n([\s\S]*?)```/.exec(section)![1]!;
}

describe('the README example tool', () => {
  it('passes the checks as approval none and counts words', async () => {
    const checked = await checkTool('count_words', example());
    expect(checked).toMatchObject({ approval: 'none', needs: 'none', keywords: ['words', 'count', 'wc'] });
    const def = definitionOf(
      evaluate('count_words', '1.0.0', checked.bundle, gatesFor('count_words', 'none', await userZod())),
      'count_words',
    );
    const ctx = {
      cwd: path.dirname(README),
      sessionId: 's',
      callId: 'c',
      signal: new AbortController().signal,
    };
    const tool = toolOf(def);
    expect(await tool.execute({ text: 'one two  three' }, ctx)).toBe('3 words');
    expect(await tool.execute({}, ctx)).toEqual({ output: 'give text or path', isError: true });
    expect(await tool.execute({ path: 'LICENSE' }, ctx)).toMatch(/^\d+ words$/);
  });
});

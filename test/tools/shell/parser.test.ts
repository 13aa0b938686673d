import { describe, expect, it } from 'vitest';
import { PermissionPolicy } from '../../../src/tools/permissions.js';
import { parseWith, shellParser, shellParserLoaded } from '../../../src/tools/shell/parser.js';

describe('the shell parser', () => {
  it('is loaded by the first shell check only, once, and leaves no global changes behind', async () => {
    const limit = Error.stackTraceLimit;
    const hadRequire = Object.hasOwn(globalThis, 'require');
    const policy = new PermissionPolicy('ask', [{ tool: 'bash', pattern: 'npm test*', action: 'allow' }]);
    expect((await policy.decide({ tool: 'read_file', approval: 'none', subject: 'a.txt' })).action).toBe(
      'allow',
    );
    // Not marked as a shell tool: matched as a whole, without the parser.
    expect((await policy.decide({ tool: 'bash', approval: 'exec', subject: 'npm test' })).action).toBe(
      'allow',
    );
    expect(shellParserLoaded()).toBe(false);

    const first = shellParser();
    expect(shellParser()).toBe(first);
    const decided = await policy.decide({
      tool: 'bash',
      approval: 'exec',
      subject: 'npm test; id',
      shell: true,
    });
    expect(decided.action).toBe('ask');
    expect(shellParserLoaded()).toBe(true);
    expect(await shellParser()).toBe(await first);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(Object.hasOwn(globalThis, 'require')).toBe(hadRequire);
  });

  it('reports syntax errors and input too deep to parse as errors, and parses again afterwards', async () => {
    const syntax = await shellParser();
    expect(parseWith(syntax, 'echo "open')).toEqual({
      ok: false,
      error: '1:6: reached EOF without closing quote "',
    });
    expect(parseWith(syntax, `${'$('.repeat(5000)}x${')'.repeat(5000)}`)).toEqual({
      ok: false,
      error: 'nested too deeply',
    });
    const again = parseWith(syntax, 'echo ok');
    expect(again.ok && again.file.Stmts?.length).toBe(1);
  });
});

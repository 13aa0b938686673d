/** Structured output: a child's final answer checked against its role's JSON Schema. */
import { describe, expect, it } from 'vitest';
import { outputChecker, repairPrompt } from '../../src/multi/roles/index.js';

const REVIEW = {
  type: 'object',
  properties: {
    verdict: { enum: ['approve', 'changes'] },
    findings: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          severity: { enum: ['critical', 'major', 'minor'] },
          file: { type: 'string' },
          line: { type: 'integer', minimum: 1 },
        },
        required: ['severity', 'file'],
      },
    },
  },
  required: ['verdict', 'findings'],
  additionalProperties: false,
};

const check = await outputChecker(REVIEW);
const GOOD = { verdict: 'changes', findings: [{ severity: 'major', file: 'src/a.ts', line: 3 }] };

describe('outputChecker', () => {
  it('accepts raw JSON that matches', () => {
    expect(check(JSON.stringify(GOOD))).toEqual({ ok: true, value: GOOD });
    expect(check(`\n  ${JSON.stringify(GOOD, null, 2)}\n`)).toEqual({ ok: true, value: GOOD });
  });

  it('accepts JSON inside a ```json fence after prose', () => {
    const text = `Here is my review.\n\n\`\`\`json\n${JSON.stringify(GOOD, null, 2)}\n\`\`\`\n`;
    expect(check(text)).toEqual({ ok: true, value: GOOD });
  });

  it('takes the last json fence, and else the last fenced block', () => {
    const early = { verdict: 'approve', findings: [] };
    const twoJson = `Draft:\n\`\`\`json\n${JSON.stringify(early)}\n\`\`\`\nFinal:\n\`\`\`json\n${JSON.stringify(GOOD)}\n\`\`\``;
    expect(check(twoJson)).toEqual({ ok: true, value: GOOD });
    const plain = `Ran:\n\`\`\`sh\nnpm test\n\`\`\`\nAnswer:\n\`\`\`\n${JSON.stringify(GOOD)}\n\`\`\``;
    expect(check(plain)).toEqual({ ok: true, value: GOOD });
  });

  it('finds a bare JSON object after a sentence', () => {
    expect(check(`Done. ${JSON.stringify(GOOD)}`)).toEqual({ ok: true, value: GOOD });
  });

  it('lists each failing path with what is wrong', () => {
    const bad = { verdict: 'maybe', findings: [{ severity: 'urgent', line: 0 }], extra: 1 };
    const result = check(JSON.stringify(bad));
    expect(result).toEqual({
      ok: false,
      error: [
        'The answer does not match the output schema:',
        '- verdict: Invalid option: expected one of "approve"|"changes"',
        '- findings[0].severity: Invalid option: expected one of "critical"|"major"|"minor"',
        '- findings[0].file: expected string, received undefined',
        '- findings[0].line: Too small: expected number to be >=1',
        '- (top level): Unrecognized key: "extra"',
      ].join('\n'),
    });
  });

  it('checks the fenced JSON against the schema too', () => {
    const result = check('```json\n{"verdict": "approve"}\n```');
    expect(result).toEqual({
      ok: false,
      error: 'The answer does not match the output schema:\n- findings: expected array, received undefined',
    });
  });

  it('caps a long list of issues', () => {
    const findings = Array.from({ length: 12 }, () => ({ severity: 'huge', file: 'a' }));
    const result = check(JSON.stringify({ verdict: 'approve', findings }));
    expect(result.ok).toBe(false);
    const lines = (result as { error: string }).error.split('\n');
    expect(lines).toHaveLength(1 + 8 + 1);
    expect(lines.at(-1)).toBe('- … and 4 more');
  });

  it('says a non-JSON answer is not JSON, and how to give it', () => {
    const result = check('The code looks fine to me, no issues.');
    expect(result.ok).toBe(false);
    expect((result as { error: string }).error).toMatch(
      /^The answer is not valid JSON \(.+\)\. Give only the JSON value, or put it in a ```json fence\.$/,
    );
  });

  it('reports the fence that does not parse', () => {
    const result = check('```json\n{"verdict": "approve", findings: []}\n```');
    expect((result as { error: string }).error).toContain('The answer is not valid JSON (');
    expect((result as { error: string }).error).toContain('property name');
  });

  it('reports the JSON after a sentence that does not parse, not the sentence', () => {
    const error = (check('Done: {verdict: "approve"}') as { error: string }).error;
    expect(error).toContain('property name');
    expect(error).not.toContain("'D'");
  });

  it('says an empty answer is empty', () => {
    expect(check('  \n')).toEqual({
      ok: false,
      error: 'The answer is empty; it must be one JSON value matching the output schema.',
    });
  });

  it('explains a value that fits none of anyOf', async () => {
    const either = await outputChecker({ anyOf: [{ type: 'string' }, { type: 'integer' }] });
    expect(either('"yes"')).toEqual({ ok: true, value: 'yes' });
    expect(either('1.5')).toEqual({
      ok: false,
      error:
        'The answer does not match the output schema:\n- (top level): matches none of the allowed forms (expected string, received number; or expected int, received number)',
    });
  });

  it('throws a clear error for a schema zod cannot convert', async () => {
    await expect(outputChecker({ $ref: '#/$defs/none' })).rejects.toThrow(
      'the output schema is not a JSON Schema zod can use: Reference not found: #/$defs/none',
    );
  });
});

describe('repairPrompt', () => {
  it('quotes the error and the schema and asks for the JSON alone', () => {
    const error = 'The answer does not match the output schema:\n- verdict: Invalid option';
    const prompt = repairPrompt(error, REVIEW);
    expect(prompt).toContain(error);
    expect(prompt).toContain('one JSON value in a ```json fence, no other text');
    expect(prompt).toContain(JSON.stringify(REVIEW, null, 2));
    expect(
      prompt.startsWith('Your final answer must be JSON matching the output schema, and it is not:\n'),
    ).toBe(true);
  });
});

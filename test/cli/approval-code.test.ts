/**
 * Saving a tool is approved by a person who sees its code: the terminal shows every
 * line of it (not the JSON of the arguments), an editor gets it as text.
 */
import { describe, expect, it } from 'vitest';
import { approvalContent } from '../../src/acp/approval-content.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { approvalView } from '../../src/cli/approval-view.js';
import { toolSource } from '../tools/user/helpers.js';

type ApprovalRequest = Extract<AgentEvent, { type: 'approval_request' }>;

const code = `${toolSource({ body: 'return "x".repeat(200);' })}${'\n'.repeat(150)}// the last line\n`;
const request = (tool: string): ApprovalRequest => ({
  type: 'approval_request',
  requestId: 'r1',
  callId: 'c1',
  tool,
  args: { name: 'echo_words', code },
  subject: 'echo_words',
  approval: 'exec',
  reason: 'ask mode: exec tools need approval',
});

describe('the approval of tool_create and tool_update shows the code', () => {
  it.each(['tool_create', 'tool_update'])(
    '%s in the terminal: every line, under the tool name',
    async (tool) => {
      const shown = await approvalView(request(tool), '/tmp', false);
      const lines = shown.trimEnd().split('\n');
      expect(lines[0]).toBe('  tool echo_words:');
      expect(lines[1]).toBe("  │ import * as z from 'zod';");
      // Nothing cut, however long: what is approved is all shown.
      expect(lines.at(-1)).toBe('  │ // the last line');
      expect(lines).toHaveLength(code.replace(/\n$/, '').split('\n').length + 1);
      expect(shown).not.toContain('\\n');
    },
  );

  it('in an editor (ACP): the code as text', async () => {
    expect(await approvalContent(request('tool_create'), '/tmp', undefined)).toEqual([
      { type: 'content', content: { type: 'text', text: `Tool echo_words:\n${code}` } },
    ]);
  });
});

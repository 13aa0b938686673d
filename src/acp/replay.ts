/** `session/load`: a stored transcript replayed as the updates an editor would have seen. */
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { Message } from '../llm/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { toolKind, toolLocations, toolTitle } from './tool-info.js';
import { textContent } from './updates.js';

/**
 * User text and images → `user_message_chunk`; assistant thinking and text →
 * `agent_thought_chunk` / `agent_message_chunk`; each tool call → `tool_call`,
 * and its result → `tool_call_update` (completed or failed, with the output).
 */
export function replayUpdates(
  history: readonly Message[],
  tools: ToolRegistry,
  cwd: string,
): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  for (const m of history) {
    for (const p of m.parts) {
      if (m.role === 'user') {
        if (p.type === 'text' && p.text)
          out.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: p.text } });
        if (p.type === 'image' && p.data)
          out.push({
            sessionUpdate: 'user_message_chunk',
            content: { type: 'image', mimeType: p.mediaType, data: p.data },
          });
        continue;
      }
      switch (p.type) {
        case 'thinking':
          if (p.text)
            out.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: p.text } });
          break;
        case 'text':
          if (p.text && m.role === 'assistant')
            out.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: p.text } });
          break;
        case 'tool-call':
          out.push({
            sessionUpdate: 'tool_call',
            toolCallId: p.id,
            title: toolTitle(tools, p.name, p.args),
            kind: toolKind(tools, p.name),
            status: 'pending',
            locations: toolLocations(p.name, p.args, cwd),
            rawInput: p.args,
          });
          break;
        case 'tool-result':
          out.push({
            sessionUpdate: 'tool_call_update',
            toolCallId: p.callId,
            status: p.isError ? 'failed' : 'completed',
            content: [textContent(p.output)],
          });
          break;
        default:
          break;
      }
    }
  }
  return out;
}

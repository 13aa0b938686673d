/**
 * "Working…" above the message box from the moment a prompt is sent until its turn
 * ends (and for a running session opened later), saying what the turn waits for.
 */
import { byId } from './dom.js';
import type { AgentEvent } from './types.js';

const WORKING = 'Working…';

export class WorkingIndicator {
  private readonly node = byId('working');
  private readonly label = byId('working-label');

  set(running: boolean): void {
    this.node.hidden = !running;
    if (!running) this.label.textContent = WORKING;
  }

  onEvent(event: AgentEvent): void {
    const text = labelFor(event);
    if (text !== undefined) this.label.textContent = text;
  }
}

function labelFor(event: AgentEvent): string | undefined {
  switch (event.type) {
    case 'turn_start':
    case 'approval_result':
      return WORKING;
    case 'tool_update':
      if (event.record.state === 'running') return `Running ${event.record.name}…`;
      if (event.record.state === 'awaiting_approval') return 'Waiting for your approval';
      return event.record.state === 'pending' ? undefined : WORKING;
    case 'approval_request':
      return 'Waiting for your approval';
    case 'question':
      return 'Waiting for your answer';
    case 'retry':
      return `Retrying (attempt ${event.attempt})…`;
    default:
      return undefined;
  }
}

/** A plan or todo list as the transcript shows it. */
import { h } from './dom.js';
import type { AgentEvent } from './types.js';

export function planBlock(event: Extract<AgentEvent, { type: 'plan' }>): HTMLElement {
  const list = h('ul', { class: 'plan-items' });
  for (const item of event.items) {
    const mark = item.status === 'completed' ? '✓' : item.status === 'in_progress' ? '▸' : '○';
    list.appendChild(h('li', { 'data-status': item.status }, `${mark} ${item.content}`));
  }
  const title = event.title ?? (event.kind === 'todo' ? 'Todo' : 'Plan');
  return h('div', { class: 'plan', 'data-testid': 'plan' }, h('strong', {}, title), list);
}

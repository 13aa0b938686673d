/**
 * A card per tool call: name, the telling argument, status and duration in the
 * header; arguments and the result (unified diffs coloured line by line) inside.
 * A native <details> element makes it collapsible and keyboard-accessible.
 */
import { clear, h } from './dom.js';
import { argSummary, formatDuration, prettyArgs } from './text.js';
import type { ToolStatus } from './types.js';

export type CardStatus = 'running' | 'waiting' | ToolStatus;

const STATUS_LABEL: Record<CardStatus, string> = {
  running: 'running',
  waiting: 'waiting for approval',
  ok: 'ok',
  error: 'error',
  cancelled: 'cancelled',
  skipped: 'skipped',
  denied: 'denied',
};

export class ToolCard {
  readonly root: HTMLDetailsElement;
  private readonly statusNode: HTMLElement;
  private readonly durationNode: HTMLElement;
  private readonly resultNode: HTMLElement;
  private readonly started = performance.now();

  constructor(
    readonly callId: string,
    readonly name: string,
    args: Record<string, unknown>,
  ) {
    this.statusNode = h('span', { class: 'tool-status', 'data-testid': 'tool-status' });
    this.durationNode = h('span', { class: 'tool-duration', 'data-testid': 'tool-duration' });
    this.resultNode = h('div', { class: 'tool-result', 'data-testid': 'tool-result' });
    const summary = argSummary(args);
    this.root = h(
      'details',
      { class: 'tool-card', 'data-testid': 'tool-card', 'data-tool': name, 'data-call-id': callId },
      h(
        'summary',
        {},
        h('span', { class: 'tool-icon', 'aria-hidden': 'true' }),
        h('span', { class: 'tool-name', 'data-testid': 'tool-name' }, name),
        summary ? h('span', { class: 'tool-arg' }, summary) : null,
        h('span', { class: 'tool-spacer' }),
        this.durationNode,
        this.statusNode,
      ),
      h(
        'div',
        { class: 'tool-body' },
        h('div', { class: 'tool-section-label' }, 'Arguments'),
        h('pre', { class: 'tool-args', 'data-testid': 'tool-args' }, prettyArgs(args)),
        this.resultNode,
      ),
    );
    this.setStatus('running');
  }

  setStatus(status: CardStatus): void {
    this.root.dataset.status = status;
    this.statusNode.textContent = STATUS_LABEL[status];
  }

  /** Shows the result; `durationMs` falls back to the time the card has been open. */
  finish(status: ToolStatus, output: string, durationMs?: number): void {
    this.setStatus(status);
    const ms = durationMs ?? performance.now() - this.started;
    this.durationNode.textContent = formatDuration(ms);
    clear(this.resultNode);
    this.resultNode.appendChild(h('div', { class: 'tool-section-label' }, 'Result'));
    this.resultNode.appendChild(isUnifiedDiff(output) ? renderDiff(output) : renderOutput(output));
    // Failures open by themselves: the user usually wants to see why.
    if (status === 'error') this.root.open = true;
  }
}

function renderOutput(output: string): HTMLElement {
  return h('pre', { class: 'tool-output' }, output === '' ? '(no output)' : output);
}

/** True when the text contains a unified diff (file headers or hunk headers). */
export function isUnifiedDiff(text: string): boolean {
  return /^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/m.test(text) && /^[-+]/m.test(text);
}

/** A unified diff with each line classed as added, removed, hunk header or context. */
export function renderDiff(text: string): HTMLElement {
  const pre = h('pre', { class: 'diff', 'data-testid': 'diff' });
  for (const line of text.split('\n')) {
    let kind = 'ctx';
    if (line.startsWith('+++') || line.startsWith('---')) kind = 'file';
    else if (line.startsWith('@@')) kind = 'hunk';
    else if (line.startsWith('+')) kind = 'add';
    else if (line.startsWith('-')) kind = 'del';
    pre.appendChild(h('span', { class: `diff-line diff-${kind}` }, line === '' ? ' ' : line));
  }
  return pre;
}

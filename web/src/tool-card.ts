/**
 * A card per tool call: name, the telling argument, state and duration in the
 * header; arguments and the result (unified diffs coloured line by line, images as
 * thumbnails) inside. A native <details> element makes it collapsible and
 * keyboard-accessible. Its `data-status` is the call's state.
 */
import { clear, h } from './dom.js';
import { imageSrc, thumbnail } from './images.js';
import { argSummary, formatDuration, prettyArgs } from './text.js';
import type { ToolCallRecord, ToolCallState } from './types.js';

/**
 * A card's state: the call's, or `awaiting_client`: a client tool's call (chat
 * completions / Responses API) whose result the API client has not sent yet.
 */
export type CardState = ToolCallState | 'awaiting_client';

const STATUS_LABEL: Record<CardState, string> = {
  awaiting_client: 'waiting for the API client',
  pending: 'queued',
  awaiting_approval: 'waiting for approval',
  running: 'running',
  completed: 'ok',
  error: 'error',
  denied: 'denied',
  cancelled: 'cancelled',
  skipped: 'skipped',
  interrupted: 'interrupted',
};

/** Whether a call in `state` has not ended yet. */
export function isActive(state: string | undefined): boolean {
  return state === 'pending' || state === 'awaiting_approval' || state === 'running';
}

export class ToolCard {
  readonly root: HTMLDetailsElement;
  private readonly statusNode: HTMLElement;
  private readonly durationNode: HTMLElement;
  private readonly resultNode: HTMLElement;
  /** When this page saw the call start running. */
  private runningSince: number | undefined;

  constructor(
    readonly callId: string,
    readonly name: string,
    args: Record<string, unknown>,
    state: CardState = 'running',
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
    this.setStatus(state);
  }

  get status(): CardState {
    return this.root.dataset.status as CardState;
  }

  setStatus(status: CardState): void {
    if (status === 'running') this.runningSince ??= performance.now();
    this.root.dataset.status = status;
    this.statusNode.textContent = STATUS_LABEL[status];
  }

  /** Shows a live call's new state, and its result once it has ended. */
  update(r: ToolCallRecord): void {
    if (isActive(r.state)) {
      this.setStatus(r.state);
      return;
    }
    let output = '';
    for (const p of r.content) if (p.type === 'text') output += p.text;
    const images = r.content.flatMap((p) => (p.type === 'image' ? [imageSrc(p)] : []));
    this.finish(
      r.state,
      output,
      r.durationMs,
      images.filter((s): s is string => s !== null),
    );
  }

  /**
   * Shows the result; without `durationMs`, the time this page saw the call run
   * (none for a call that never ran).
   */
  finish(status: ToolCallState, output: string, durationMs?: number, images: string[] = []): void {
    const ms =
      durationMs ?? (this.runningSince === undefined ? undefined : performance.now() - this.runningSince);
    this.setStatus(status);
    this.durationNode.textContent = ms === undefined ? '' : formatDuration(ms);
    clear(this.resultNode);
    this.resultNode.appendChild(h('div', { class: 'tool-section-label' }, 'Result'));
    this.resultNode.appendChild(isUnifiedDiff(output) ? renderDiff(output) : renderOutput(output));
    if (images.length > 0)
      this.resultNode.appendChild(h('div', { class: 'thumbs' }, ...images.map(thumbnail)));
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

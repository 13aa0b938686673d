/**
 * The session's token and cost meter: stored totals plus live `usage` events, in the
 * top bar (short) and in Settings' "This session" (in full, for narrow screens).
 */
import { byId, h } from './dom.js';
import { compactNumber, formatCost } from './text.js';
import type { SessionUsage, Usage } from './types.js';

export class UsageMeter {
  private readonly node = byId('usage');
  /** Token counts; a narrow top bar shows only the cost. */
  private readonly tokens = h('span', { class: 'usage-tokens' });
  private readonly costNode = h('span', { class: 'usage-cost' });
  private readonly detail = byId('session-usage');
  private input = 0;
  private output = 0;
  private cost = 0;
  /** The sub-agents' share of the above. */
  private subTokens = 0;
  private subCost = 0;
  private known = false;

  constructor() {
    this.node.replaceChildren(this.tokens, this.costNode);
  }

  /** `base`: the open session's stored totals; none for a new chat. */
  reset(base?: SessionUsage): void {
    this.known = base !== undefined;
    this.input = base?.input_tokens ?? 0;
    this.output = base?.output_tokens ?? 0;
    this.cost = base?.cost_usd ?? 0;
    this.subTokens = (base?.subagents?.input_tokens ?? 0) + (base?.subagents?.output_tokens ?? 0);
    this.subCost = base?.subagents?.cost_usd ?? 0;
    this.render();
  }

  /** One model call's usage; `subagent`: a sub-agent's call (counted in the total and in their share). */
  add(usage: Usage, costUsd: number, subagent = false): void {
    this.known = true;
    this.input += usage.inputTokens;
    this.output += usage.outputTokens;
    this.cost += costUsd;
    if (subagent) {
      this.subTokens += usage.inputTokens + usage.outputTokens;
      this.subCost += costUsd;
    }
    this.render();
  }

  private render(): void {
    this.tokens.textContent = `${compactNumber(this.input)} in · ${compactNumber(this.output)} out · `;
    this.costNode.textContent = formatCost(this.cost);
    const share =
      this.subTokens > 0 || this.subCost > 0
        ? `, of which sub-agents ${this.subTokens.toLocaleString('en-US')} tokens, ${formatCost(this.subCost)}`
        : '';
    this.node.title = `${this.input} input tokens, ${this.output} output tokens, $${this.cost.toFixed(6)} this session${share}`;
    this.node.dataset.input = String(this.input);
    this.node.dataset.output = String(this.output);
    this.node.dataset.subagentTokens = String(this.subTokens);
    this.detail.textContent = this.known
      ? `${this.input.toLocaleString('en-US')} input tokens · ${this.output.toLocaleString('en-US')} output tokens · ${formatCost(this.cost)}${share}`
      : 'No messages yet';
  }
}

/** The session's token and cost meter: stored totals plus live `usage` events. */
import { byId, h } from './dom.js';
import { compactNumber, formatCost } from './text.js';
import type { SessionUsage, Usage } from './types.js';

export class UsageMeter {
  private readonly node = byId('usage');
  /** Token counts; a narrow top bar shows only the cost. */
  private readonly tokens = h('span', { class: 'usage-tokens' });
  private readonly costNode = h('span', { class: 'usage-cost' });
  private input = 0;
  private output = 0;
  private cost = 0;

  constructor() {
    this.node.replaceChildren(this.tokens, this.costNode);
  }

  reset(base?: SessionUsage): void {
    this.input = base?.input_tokens ?? 0;
    this.output = base?.output_tokens ?? 0;
    this.cost = base?.cost_usd ?? 0;
    this.render();
  }

  add(usage: Usage, costUsd: number): void {
    this.input += usage.inputTokens;
    this.output += usage.outputTokens;
    this.cost += costUsd;
    this.render();
  }

  private render(): void {
    this.tokens.textContent = `${compactNumber(this.input)} in · ${compactNumber(this.output)} out · `;
    this.costNode.textContent = formatCost(this.cost);
    this.node.title = `${this.input} input tokens, ${this.output} output tokens, $${this.cost.toFixed(6)} this session`;
    this.node.dataset.input = String(this.input);
    this.node.dataset.output = String(this.output);
  }
}

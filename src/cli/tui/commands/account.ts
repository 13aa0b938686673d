/** `/cost` (this session's tokens and cost by model, sub-agents included) and `/config` (the effective config, secrets masked). */
import type { TuiCommand } from '../host.js';
import { plural, tokens, usd } from './format.js';

export const costCommand: TuiCommand = {
  name: 'cost',
  description: "This session's tokens and cost by model, sub-agents and background jobs included",
  whileBusy: true,
  run(_arg, host) {
    const id = host.session().id;
    const { sessions } = host.runtime;
    const total = sessions.usageWithSubagents(id);
    const rows = sessions.usageByModel(id);
    if (total.calls === 0) {
      host.print('No model calls in this session yet.', { tone: 'dim' });
      return;
    }
    const lines = [
      '| model | calls | input | cached | output | cost |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map(
        (r) =>
          `| ${r.model}${r.subagentCalls > 0 ? ` (${r.subagentCalls} by sub-agents)` : ''} | ${r.calls} | ${tokens(r.inputTokens)} | ${tokens(r.cachedInputTokens)} | ${tokens(r.outputTokens)} | ${usd(r.costUsd)} |`,
      ),
      `| **total** | ${total.calls} | ${tokens(total.inputTokens)} | ${tokens(total.cachedInputTokens)} | ${tokens(total.outputTokens)} | **${usd(total.costUsd)}** |`,
    ];
    const sub = total.subagents;
    if (sub.count > 0)
      lines.push(
        '',
        `Sub-agents: ${plural(sub.count, 'sub-agent')}, ${plural(sub.calls, 'call')}, ${usd(sub.costUsd)} of the total.`,
      );
    host.print(lines.join('\n'), { markdown: true });
  },
};

export const configCommand: TuiCommand = {
  name: 'config',
  description: 'Show the effective config (secrets masked) and the files it came from',
  whileBusy: true,
  async run(_arg, host) {
    // The YAML printer loads only when asked for: it stays off the screen's start-up path.
    const { maskedConfig } = await import('../../../config/mask.js');
    const { config } = host.runtime;
    const files =
      config.files.length > 0
        ? config.files.map((f) => `- \`${f}\``).join('\n')
        : '- none (environment and defaults only)';
    const yaml = maskedConfig(config);
    const fence = yaml.includes('```') ? '````' : '```';
    host.print(
      `**Config files** (later ones win):\n\n${files}\n\n${fence}yaml\n${yaml.trimEnd()}\n${fence}`,
      {
        markdown: true,
      },
    );
  },
};

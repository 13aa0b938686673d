import type { ModelInfo, Usage } from './types.js';

/**
 * The price of one call in US dollars, from the per-million-token prices in `info`
 * (unknown prices count as 0).
 *
 * `usage.inputTokens` is the whole prompt, cached part included (OpenAI's
 * convention; adapters normalise to it). The cached part is priced at
 * `cachedInputPrice` when known, else at the full input price. Reasoning tokens are
 * already part of `outputTokens`.
 */
export function costUsd(
  info: Pick<ModelInfo, 'inputPrice' | 'outputPrice' | 'cachedInputPrice'>,
  usage: Usage,
): number {
  const input = nonNegative(usage.inputTokens);
  const cached = Math.min(input, nonNegative(usage.cachedInputTokens ?? 0));
  const output = nonNegative(usage.outputTokens);
  const inputPrice = info.inputPrice ?? 0;
  const cachedPrice = info.cachedInputPrice ?? inputPrice;
  const micro = (input - cached) * inputPrice + cached * cachedPrice + output * (info.outputPrice ?? 0);
  return micro / 1_000_000;
}

function nonNegative(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 0;
}

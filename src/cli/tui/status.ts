/**
 * The status line under the input box: model and profile, permission mode, context
 * use (tokens / window, %), session cost, running sub-agents and background processes,
 * and a slot for the work mode (set by whoever wires work modes; empty until then).
 */
import { type Component, truncateToWidth } from '@mariozechner/pi-tui';
import { cyan, dim, green, red, yellow } from './theme.js';

export interface StatusInfo {
  /** `starting…` before the runtime exists, else undefined. */
  phase?: string;
  model?: string;
  profile?: string;
  permissionMode?: string;
  /** The work mode (design, develop, …), when work modes exist. */
  workMode?: string;
  contextTokens?: number;
  contextWindow?: number;
  costUsd?: number;
  /** Work running in the background: `1 sub-agent`, `2 jobs` (bg_start processes). */
  jobs?: string[];
  /** What the input does now: `working… Esc interrupts`. */
  activity?: string;
}

/** 12345 → `12.3k`. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function statusText(s: StatusInfo): string {
  const parts: string[] = [];
  if (s.phase) parts.push(yellow(s.phase));
  if (s.model)
    parts.push(cyan(s.profile && s.profile !== 'main_model' ? `${s.model} (${s.profile})` : s.model));
  if (s.workMode) parts.push(`mode ${s.workMode}`);
  if (s.permissionMode) parts.push(s.permissionMode === 'yolo' ? red(s.permissionMode) : s.permissionMode);
  if (s.contextWindow) {
    const used = s.contextTokens ?? 0;
    const pct = Math.round((used / s.contextWindow) * 100);
    const text = `ctx ${tokens(used)}/${tokens(s.contextWindow)} ${pct}%`;
    parts.push(pct >= 80 ? red(text) : pct >= 60 ? yellow(text) : text);
  }
  if (s.costUsd !== undefined) parts.push(`$${s.costUsd.toFixed(s.costUsd < 1 ? 4 : 2)}`);
  if (s.jobs && s.jobs.length > 0) parts.push(green(s.jobs.join(', ')));
  const line = parts.join(dim(' · '));
  return s.activity ? `${line}${dim(' · ')}${dim(s.activity)}` : line;
}

export class StatusLine implements Component {
  info: StatusInfo = {};
  invalidate(): void {}
  render(width: number): string[] {
    return [truncateToWidth(statusText(this.info), width)];
  }
}

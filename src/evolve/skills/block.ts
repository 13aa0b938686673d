/**
 * The `## Skills` block of L0: a line saying how skills are used, the skills the
 * prompt likely needs, then every offered skill by name and a short description,
 * all within `BLOCK_TOKENS`. With many skills the descriptions get shorter, then the
 * skills that are not likely needed are named only, then the list is cut with a count
 * (the `skill` tool still loads any installed skill by name).
 */
import { estimateText } from '../../context/tokens.js';
import type { Matchable } from './match.js';

/**
 * The most the block may cost, in estimated tokens and in characters / 4 (the loop's
 * pre-load budget counts that way). With the `skill` tool's schema it keeps a first
 * request with 20 skills installed within 1,500 tokens.
 */
export const BLOCK_TOKENS = 210;
/** The longest description shown for a likely match, and for any other skill (characters). */
export const LIKELY_CHARS = 160;
export const OTHER_CHARS = 120;
/** Below this, a description says too little to be worth its tokens: the skill is named only. */
const MIN_CHARS = 36;

export const HEADER =
  "Skills hold instructions for particular tasks. Before following one, load it: call the skill tool with the skill's name.";

/** `text` cut to at most `max` characters at a word boundary, with `…` when cut. */
export function cut(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const head = chars.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  const word = space > max / 2 ? head.slice(0, space) : head;
  return `${word.replace(/[\s,;:.–—-]+$/u, '')}…`;
}

interface Layout {
  likely: number;
  other: number;
  /** Other skills are named only (on one line). */
  namesOnly: boolean;
  /** How many named-only skills are listed (the rest counted). */
  listed: number;
}

function render(likely: readonly Matchable[], others: readonly Matchable[], l: Layout): string {
  const lines = [HEADER];
  if (likely.length > 0) lines.push(`Likely relevant now: ${likely.map((s) => s.name).join(', ')}`);
  for (const s of likely) lines.push(`- ${s.name}: ${cut(s.description, l.likely)}`);
  if (!l.namesOnly) {
    for (const s of others) lines.push(`- ${s.name}: ${cut(s.description, l.other)}`);
  } else if (others.length > 0) {
    const shown = others.slice(0, l.listed).map((s) => s.name);
    const rest = others.length - shown.length;
    const label = likely.length > 0 ? 'Also installed' : 'Installed';
    lines.push(`${label}: ${shown.join(', ')}${rest > 0 ? `, and ${rest} more` : ''}`);
  }
  return lines.join('\n');
}

/**
 * The block for `skills` (offered, in the order to list them) with the names in
 * `likely` first; '' when there are none.
 */
export function skillsBlock(skills: readonly Matchable[], likelyNames: readonly string[] = []): string {
  if (skills.length === 0) return '';
  const byName = new Map(skills.map((s) => [s.name, s]));
  const likely = likelyNames.flatMap((n) => byName.get(n) ?? []);
  const others = skills.filter((s) => !likelyNames.includes(s.name));
  const layout: Layout = {
    likely: LIKELY_CHARS,
    other: OTHER_CHARS,
    namesOnly: false,
    listed: others.length,
  };
  const fits = () => {
    const text = render(likely, others, layout);
    return Math.max(estimateText(text), Math.ceil(text.length / 4)) <= BLOCK_TOKENS;
  };
  while (!fits() && !layout.namesOnly) {
    if (layout.other - 12 >= MIN_CHARS) layout.other -= 12;
    else layout.namesOnly = true;
  }
  while (!fits() && layout.likely - 20 >= MIN_CHARS * 2) layout.likely -= 20;
  while (!fits() && layout.listed > 0) layout.listed--;
  return render(likely, others, layout);
}

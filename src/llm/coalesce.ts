import type { Delta } from './types.js';

/**
 * Appends `d`, joining it to the previous delta when both are text or both are
 * (unsigned) thinking. A stream read while the reader was busy then costs one
 * step per kind of content instead of one per wire chunk; the text is unchanged.
 */
export function coalesce(out: Delta[], d: Delta): void {
  const last = out[out.length - 1];
  if (d.type === 'text' && last?.type === 'text') {
    out[out.length - 1] = { type: 'text', text: last.text + d.text };
  } else if (d.type === 'thinking' && last?.type === 'thinking' && !d.signature && !last.signature) {
    out[out.length - 1] = { type: 'thinking', text: last.text + d.text };
  } else {
    out.push(d);
  }
}

/** Images in the transcript: a stored image part's address, and its clickable thumbnail. */
import { h } from './dom.js';

/** A data: URL for inline data, or the part's URL when it is a web or image data address; else null. */
export function imageSrc(part: { mediaType: string; data?: string; url?: string }): string | null {
  if (part.data) return `data:${part.mediaType};base64,${part.data}`;
  if (part.url && /^(https?:|data:image\/)/.test(part.url)) return part.url;
  return null;
}

/** The sources of the images among `parts` that can be shown. */
export function imageSrcs(
  parts: readonly ({ type: string } & Partial<{ mediaType: string; data: string; url: string }>)[],
): string[] {
  return parts.flatMap((p) => {
    const src =
      p.type === 'image' && p.mediaType
        ? imageSrc({ mediaType: p.mediaType, data: p.data, url: p.url })
        : null;
    return src ? [src] : [];
  });
}

/** A thumbnail that opens the full image in a new tab. */
export function thumbnail(src: string): HTMLElement {
  const img = h('img', { class: 'thumb', src, alt: 'attached image', 'data-testid': 'image-thumb' });
  const link = h('a', { href: src, target: '_blank', rel: 'noopener noreferrer', class: 'thumb-link' }, img);
  return link;
}

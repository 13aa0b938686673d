/**
 * A few line icons as inline SVG (no icon font, no emoji: headless and minimal
 * Linux browsers often lack an emoji font). Paths are 24×24, stroked.
 */

const PATHS = {
  trash: 'M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3',
  pin: 'M9 4h6l-1 6 4 4H6l4-4-1-6zM12 14v6',
  pencil: 'M4 20h4L19 9l-4-4L4 16v4zM13 7l4 4',
} as const;

export type IconName = keyof typeof PATHS;

const SVG_NS = 'http://www.w3.org/2000/svg';

export function icon(name: IconName): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'svg-icon');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(SVG_NS, 'path');
  path.setAttribute('d', PATHS[name]);
  svg.appendChild(path);
  return svg;
}

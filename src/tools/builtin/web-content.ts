/**
 * Turning a downloaded body into text a model can read: HTML to Markdown (noise
 * dropped, title kept), JSON pretty-printed, text as is, anything else described.
 */
import { formatSize, looksBinary } from './text.js';

export type BodyKind = 'html' | 'json' | 'text' | 'binary';

/** Elements that are page furniture rather than content (script and style are dropped by default). */
const NOISE_ELEMENTS = ['NAV', 'FOOTER', 'NOSCRIPT', 'SVG', 'IFRAME', 'TEMPLATE', 'CANVAS', 'OBJECT'];

const TEXT_TYPES = new Set([
  'application/xml',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/graphql',
  'application/x-ndjson',
  'application/csv',
]);

/** The media type without parameters, lower case (`text/html`). */
export function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** What kind of body this is, from the content type and, when that is missing, a sniff. */
export function kindOf(contentType: string, bytes: Uint8Array): BodyKind {
  const type = mediaType(contentType);
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/json' || type === 'text/json' || type.endsWith('+json')) return 'json';
  if (type.startsWith('text/') || type.endsWith('+xml') || TEXT_TYPES.has(type)) return 'text';
  if (type !== '') return 'binary';
  if (looksBinary(bytes)) return 'binary';
  const head = Buffer.from(bytes.subarray(0, 512)).toString('utf8').trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'html';
  if (head.startsWith('{') || head.startsWith('[')) return 'json';
  return 'text';
}

/** Decodes with the charset the content type names, falling back to UTF-8. */
export function decodeText(bytes: Uint8Array, contentType: string): string {
  const charset = /charset="?([\w-]+)"?/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
};

/** Decodes the common HTML entities (numeric ones and a few named ones). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Tags removed and entities decoded, whitespace collapsed: for titles and search snippets. */
export function plainText(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}

/** The page's `<title>`, if it has one. */
export function htmlTitle(html: string): string | undefined {
  const match = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  const title = match ? plainText(match[1] ?? '') : '';
  return title === '' ? undefined : title;
}

/** HTML to Markdown with scripts, styles, navigation and footers left out. */
export async function htmlToMarkdown(html: string): Promise<string> {
  // Loaded on first use: the converter and its parser stay off the start-up path. It is
  // CommonJS: its exports are the module's default export both under Node and in the
  // esbuild bundle (whose split chunk has no named exports: `.NodeHtmlMarkdown` of the
  // namespace is undefined there, which broke every HTML page in the built CLI).
  const { NodeHtmlMarkdown } = (await import('node-html-markdown')).default;
  return NodeHtmlMarkdown.translate(html, { ignore: NOISE_ELEMENTS, maxConsecutiveNewlines: 2 }).trim();
}

/** JSON pretty-printed with two spaces; the text as is when it does not parse. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export interface RenderedBody {
  title?: string;
  text: string;
}

/** The readable form of a body of the given kind. */
export async function renderBody(
  kind: BodyKind,
  bytes: Uint8Array,
  contentType: string,
): Promise<RenderedBody> {
  if (kind === 'binary') {
    const type = mediaType(contentType) || 'unknown type';
    return {
      text: `(binary content: ${type}, ${formatSize(bytes.length)} read; not shown — save it with download_file)`,
    };
  }
  const text = decodeText(bytes, contentType);
  if (kind === 'json') return { text: prettyJson(text) };
  if (kind === 'text') return { text };
  const title = htmlTitle(text);
  const markdown = await htmlToMarkdown(text);
  return title === undefined ? { text: markdown } : { title, text: markdown };
}

/** Cuts `text` to `max` characters with a note saying how to see more. */
export function capText(text: string, max: number, more: string): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n\n… [truncated: showing ${max} of ${text.length} chars; ${more}]`;
}

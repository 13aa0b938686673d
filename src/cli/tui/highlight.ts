/**
 * Syntax highlighting of fenced code blocks: highlight.js core with a dozen common
 * languages (not all 190: bytes in the bundle cost start-up), its HTML turned into
 * ANSI colours line by line (pi-tui resets styles at each line's end, so the spans
 * open at a line break are opened again on the next line).
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['js', 'jsx', 'mjs', 'cjs'], { languageName: 'javascript' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['rs'], { languageName: 'rust' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['md'], { languageName: 'markdown' });

/** highlight.js scope → SGR colour code (a 16-colour palette every terminal has). */
const COLOURS: Record<string, string> = {
  keyword: '35',
  built_in: '36',
  type: '36',
  literal: '33',
  number: '33',
  string: '32',
  regexp: '31',
  subst: '39',
  symbol: '33',
  title: '34',
  'title.function': '34',
  'title.class': '36',
  params: '39',
  comment: '90',
  doctag: '90',
  meta: '90',
  attr: '33',
  attribute: '33',
  variable: '31',
  'variable.language': '35',
  property: '34',
  tag: '31',
  name: '31',
  selector: '35',
  addition: '32',
  deletion: '31',
  section: '1',
  bullet: '33',
  emphasis: '3',
  strong: '1',
};

function colourOf(cls: string): string {
  // `hljs-title function_` → title.function
  const parts = cls
    .split(/\s+/)
    .map((p) => p.replace(/^hljs-/, '').replace(/_+$/, ''))
    .filter(Boolean);
  const key = parts.join('.');
  return COLOURS[key] ?? COLOURS[parts[0] ?? ''] ?? '39';
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#x27;': "'",
  '&#39;': "'",
};
const unentity = (s: string): string => s.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (m) => ENTITIES[m] ?? m);

/** highlight.js HTML → ANSI lines. */
export function htmlToAnsi(html: string): string[] {
  const lines: string[] = [];
  const stack: string[] = [];
  let line = '';
  const open = (): string => stack.map((c) => `\u001b[${c}m`).join('');
  for (const token of html.split(/(<span class="[^"]*">|<\/span>|\n)/)) {
    if (token === '') continue;
    if (token === '\n') {
      lines.push(`${line}\u001b[0m`);
      line = open();
    } else if (token === '</span>') {
      stack.pop();
      line += `\u001b[0m${open()}`;
    } else if (token.startsWith('<span class="')) {
      const c = colourOf(token.slice(13, -2));
      stack.push(c);
      line += `\u001b[${c}m`;
    } else line += unentity(token);
  }
  lines.push(`${line}\u001b[0m`);
  return lines;
}

/** The code's lines coloured for `lang` (plain lines for a language not loaded here). */
export function highlightCode(code: string, lang?: string): string[] {
  const name = lang?.trim().toLowerCase();
  if (!name || !hljs.getLanguage(name)) return code.split('\n');
  try {
    return htmlToAnsi(hljs.highlight(code, { language: name, ignoreIllegals: true }).value);
  } catch {
    return code.split('\n');
  }
}

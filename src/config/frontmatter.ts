/**
 * Splitting a Markdown file with YAML frontmatter (a sub-agent role file, a skill's
 * SKILL.md) into its frontmatter and its body. Small enough to write here (the `yaml`
 * package parses the block), and it lets a syntax error name the file's own line, and
 * lets the common Claude Code slip of a `description:` holding an unquoted `: ` still load.
 */
import { parseDocument } from 'yaml';

export type Frontmatter =
  | { ok: true; data: Record<string, unknown>; body: string }
  | { ok: false; key: string; expected: string; got: string; fix: string };

const FENCE = /^---[ \t]*$/;
const END = /^(?:---|\.\.\.)[ \t]*$/;

interface YamlResult {
  value?: unknown;
  error?: { message: string; line?: number; col?: number };
}

function parseYaml(text: string): YamlResult {
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (!error) return { value: doc.toJS() };
  const pos = error.linePos?.[0];
  const message = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
  return { error: { message, line: pos?.line, col: pos?.col } };
}

/**
 * Top-level `key: value` lines whose plain value holds `: ` (not valid YAML), with the
 * value quoted, as Claude Code reads them. Undefined when there is no such line.
 */
function quoteLooseValues(yaml: string): string | undefined {
  let changed = false;
  const lines = yaml.split('\n').map((line) => {
    const m = /^([A-Za-z_][\w-]*):[ \t]+(.*?)[ \t]*$/.exec(line);
    const value = m?.[2];
    if (!m || !value || /^["'[{|>&*!#]/.test(value) || !value.includes(': ')) return line;
    changed = true;
    return `${m[1]}: ${JSON.stringify(value)}`;
  });
  return changed ? lines.join('\n') : undefined;
}

/** Splits `text` (a role file, a SKILL.md) into its frontmatter mapping and its body. */
export function splitFrontmatter(text: string): Frontmatter {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? '')) {
    return {
      ok: false,
      key: '(frontmatter)',
      expected: 'a YAML block between `---` lines at the top of the file',
      got: 'none',
      fix: 'start the file with `---`, then `name:` and `description:` lines, then `---`, then the instructions.',
    };
  }
  const end = lines.findIndex((line, i) => i > 0 && END.test(line));
  if (end < 0) {
    return {
      ok: false,
      key: '(frontmatter)',
      expected: 'a closing `---` line after the frontmatter',
      got: 'none',
      fix: 'add a line `---` after the last frontmatter key.',
    };
  }
  const yaml = lines.slice(1, end).join('\n');
  const body = lines
    .slice(end + 1)
    .join('\n')
    .trim();
  let parsed = parseYaml(yaml);
  if (parsed.error) {
    const loose = quoteLooseValues(yaml);
    const retried = loose === undefined ? undefined : parseYaml(loose);
    if (retried && !retried.error) parsed = retried;
  }
  if (parsed.error) {
    const { message, line, col } = parsed.error;
    const at = line === undefined ? '' : ` at line ${line + 1}, column ${col ?? 1}`;
    return {
      ok: false,
      key: '(frontmatter)',
      expected: 'valid YAML',
      got: `a syntax error${at} (${message})`,
      fix: 'correct the YAML there: indent with spaces, and quote a value that holds `: ` or ` #`.',
    };
  }
  const data = parsed.value ?? {};
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return {
      ok: false,
      key: '(frontmatter)',
      expected: 'a mapping of keys such as `name:` and `description:`',
      got: Array.isArray(data) ? 'a list' : JSON.stringify(data),
      fix: 'write one `key: value` per line between the `---` lines.',
    };
  }
  return { ok: true, data: data as Record<string, unknown>, body };
}

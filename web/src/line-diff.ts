/**
 * A line diff of two texts (longest common subsequence), for the approval preview
 * of an edit. The common head and tail are matched first; a middle too large to
 * compare line by line is shown as all removed, then all added.
 */

export interface DiffLine {
  kind: 'add' | 'del' | 'ctx' | 'hunk' | 'file';
  text: string;
}

/** Cells of the comparison table, at most (a few MB of memory). */
const MAX_CELLS = 1_000_000;

function lines(text: string): string[] {
  return text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
}

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = lines(before);
  const b = lines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let endA = a.length;
  let endB = b.length;
  while (endA > head && endB > head && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ctx = (text: string): DiffLine => ({ kind: 'ctx', text });
  return [
    ...a.slice(0, head).map(ctx),
    ...middle(a.slice(head, endA), b.slice(head, endB)),
    ...a.slice(endA).map(ctx),
  ];
}

function middle(a: string[], b: string[]): DiffLine[] {
  const del = (text: string): DiffLine => ({ kind: 'del', text });
  const add = (text: string): DiffLine => ({ kind: 'add', text });
  if (a.length === 0 || b.length === 0 || (a.length + 1) * (b.length + 1) > MAX_CELLS) {
    return [...a.map(del), ...b.map(add)];
  }
  // lcs[i * w + j]: the longest common subsequence of a[i..] and b[j..].
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] =
        a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'ctx', text: a[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) {
      out.push(del(a[i++]!));
    } else {
      out.push(add(b[j++]!));
    }
  }
  while (i < a.length) out.push(del(a[i++]!));
  while (j < b.length) out.push(add(b[j++]!));
  return out;
}

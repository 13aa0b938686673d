/**
 * Tiny DOM helpers. Text always goes in through `textContent`; the only HTML the
 * app inserts is sanitized Markdown (see markdown.ts).
 */

type Attrs = Record<string, string | boolean | undefined>;
type Child = Node | string | null | undefined | false;

/** Creates an element: `h('button', { class: 'x', 'aria-label': 'Close' }, 'Close')`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : value);
  }
  append(node, ...children);
  if (tag === 'button' && !node.hasAttribute('type')) node.setAttribute('type', 'button');
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** Finds a required element by id; a missing one is a bug in index.html. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`index.html lacks #${id}`);
  return node as T;
}

export function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** Toasts on screen at once, at most: older ones make way. */
const MAX_TOASTS = 3;

/**
 * A short message just above the composer, right-aligned (errors and
 * confirmations); it lets clicks through and never covers the panel's inputs.
 */
export function toast(message: string, kind: 'error' | 'info' = 'info'): void {
  const host = byId('toasts');
  const item = h(
    'div',
    { class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : 'status', 'data-testid': 'toast' },
    message,
  );
  host.appendChild(item);
  while (host.children.length > MAX_TOASTS) host.firstElementChild?.remove();
  setTimeout(() => item.remove(), kind === 'error' ? 8000 : 3000);
}

/** Runs an async action and shows its failure as a toast instead of losing it. */
export async function attempt<T>(action: () => Promise<T>): Promise<T | undefined> {
  try {
    return await action();
  } catch (err) {
    toast((err as Error).message || String(err), 'error');
    return undefined;
  }
}

/** Scrolls `scroller` to its end when forced or when the reader is already near it. */
export function followEnd(scroller: HTMLElement, force: boolean): void {
  const nearEnd = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 120;
  if (force || nearEnd) scroller.scrollTop = scroller.scrollHeight;
}

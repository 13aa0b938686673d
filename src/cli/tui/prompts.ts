/**
 * The small interactive views that take the input box's place for a moment: an
 * approval (y once / a always / n reject, then a reason / Esc stops the turn), a question (its options as
 * a list, or free text), a one-line answer, and a picker with search. Each calls
 * `done` once; the screen then gives the focus back to the editor.
 */
import {
  type Component,
  type Focusable,
  fuzzyFilter,
  Input,
  Key,
  matchesKey,
  type SelectItem,
  SelectList,
  truncateToWidth,
} from '@mariozechner/pi-tui';
import type { ApprovalDecision } from '../../runtime/index.js';
import { wrap } from './blocks.js';
import { bold, dim, selectTheme, yellow } from './theme.js';

/** An Input under a question line. Enter answers, Esc gives undefined. */
export class AskView implements Component, Focusable {
  private readonly input = new Input();
  private _focused = false;
  constructor(
    private readonly question: string,
    done: (answer: string | undefined) => void,
    initial?: string,
  ) {
    if (initial) this.input.setValue(initial);
    this.input.onSubmit = (v) => done(v);
    this.input.onEscape = () => done(undefined);
  }
  get focused(): boolean {
    return this._focused;
  }
  set focused(v: boolean) {
    this._focused = v;
    this.input.focused = v;
  }
  invalidate(): void {
    this.input.invalidate();
  }
  handleInput(data: string): void {
    if (matchesKey(data, Key.ctrl('c'))) {
      this.input.onEscape?.();
      return;
    }
    this.input.handleInput(data);
  }
  render(width: number): string[] {
    return [...wrap(bold(this.question), width), ...this.input.render(width)];
  }
}

/** What an approval view answers: the user's decision, or `interrupt` (Esc: stop the turn). */
export type ApprovalAnswer = ApprovalDecision | 'interrupt';

/**
 * An approval: what the call does, then one key. `n` asks for an optional reason; Esc
 * (here or in the reason) stops the turn. `always` says what "always" allows.
 */
export class ApprovalView implements Component, Focusable {
  private reason: AskView | undefined;
  focused = false;
  constructor(
    private readonly body: string,
    private readonly question: string,
    private readonly always: string,
    private readonly done: (answer: ApprovalAnswer, reason?: string) => void,
    private readonly changed: () => void,
  ) {}
  invalidate(): void {}
  handleInput(data: string): void {
    if (this.reason) {
      this.reason.handleInput(data);
      return;
    }
    const key = data.toLowerCase();
    if (key === 'y') this.done('once');
    else if (key === 'a') this.done('always');
    else if (matchesKey(data, Key.escape)) this.done('interrupt');
    else if (key === 'n') {
      // Enter (with or without a reason) rejects; Esc there stops the turn.
      this.reason = new AskView('Why not? (tell the agent, or Enter to skip; Esc stops the turn)', (r) =>
        r === undefined ? this.done('interrupt') : this.done('reject', r.trim() || undefined),
      );
      this.reason.focused = true;
      this.changed();
    }
  }
  render(width: number): string[] {
    const lines = this.body ? wrap(this.body.replace(/\n$/, ''), width) : [];
    lines.push(...wrap(yellow(this.question), width));
    if (this.reason) lines.push(...this.reason.render(width));
    else
      lines.push(
        ...wrap(
          dim(`[y] yes, once · [a] ${this.always} · [n] no, with a reason · Esc stops the turn`),
          width,
        ),
      );
    return lines;
  }
}

/** One choice of a PickView. */
interface Choice<T> {
  value: T;
  label: string;
  description?: string;
  /** Searched (as words, not fuzzily), not shown. */
  keywords?: string;
}

const SEARCH = 'search: ';

/**
 * A list with a search line over it: typing filters, fuzzy on label and description,
 * and an item whose keywords contain every typed word is found too.
 */
export class PickView<T> implements Component, Focusable {
  private readonly search = new Input();
  private list: SelectList;
  private _focused = false;
  constructor(
    private readonly title: string,
    private readonly items: Array<Choice<T>>,
    private readonly searchable: boolean,
    private readonly done: (value: T | undefined) => void,
    selected?: T,
  ) {
    this.list = this.makeList(this.items);
    const at = items.findIndex((i) => i.value === selected);
    if (at >= 0) this.list.setSelectedIndex(at);
  }
  get focused(): boolean {
    return this._focused;
  }
  set focused(v: boolean) {
    this._focused = v;
    this.search.focused = v;
  }
  private makeList(items: Array<Choice<T>>): SelectList {
    const shown: SelectItem[] = items.map((item) => ({
      value: String(this.items.indexOf(item)),
      label: item.label,
      ...(item.description ? { description: item.description } : {}),
    }));
    const list = new SelectList(shown, 10, selectTheme);
    list.onSelect = (s) => this.done(this.items[Number(s.value)]?.value);
    list.onCancel = () => this.done(undefined);
    return list;
  }
  invalidate(): void {
    this.list.invalidate();
  }
  handleInput(data: string): void {
    if (matchesKey(data, Key.ctrl('c'))) {
      this.done(undefined);
      return;
    }
    const nav =
      matchesKey(data, Key.up) ||
      matchesKey(data, Key.down) ||
      matchesKey(data, Key.enter) ||
      matchesKey(data, Key.escape) ||
      matchesKey(data, Key.pageUp) ||
      matchesKey(data, Key.pageDown);
    if (nav || !this.searchable) {
      this.list.handleInput(data);
      return;
    }
    this.search.handleInput(data);
    this.list = this.makeList(searchChoices(this.items, this.search.getValue()));
  }
  render(width: number): string[] {
    const head = wrap(bold(this.title), width);
    const search = this.searchable
      ? this.search
          .render(Math.max(1, width - SEARCH.length))
          .map((l) => truncateToWidth(`${dim(SEARCH.trimEnd())} ${l}`, width))
      : [];
    return [
      ...head,
      ...search,
      ...this.list.render(width),
      truncateToWidth(dim('↑↓ choose · Enter select · Esc cancel'), width),
    ];
  }
}

/** The choices `query` finds: fuzzy matches on label and description first, then keyword matches. */
export function searchChoices<C extends Choice<unknown>>(items: readonly C[], query: string): C[] {
  const q = query.trim();
  if (!q) return [...items];
  const fuzzy = fuzzyFilter([...items], q, (i) => `${i.label} ${i.description ?? ''}`);
  const words = q.toLowerCase().split(/\s+/);
  const found = new Set(fuzzy);
  const more = items.filter(
    (i) =>
      !found.has(i) && i.keywords !== undefined && words.every((w) => i.keywords!.toLowerCase().includes(w)),
  );
  return [...fuzzy, ...more];
}

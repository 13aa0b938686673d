/**
 * The Skills panel: the installed skills (where each comes from, its precedence, the
 * shadowed ones and the problems found), each viewable with its instructions and
 * removable; and the Inbox of drafted skills, each viewable, acceptable and rejectable.
 * Removing and rejecting take two clicks. A skill in another agent's folder, or a
 * draft whose name is taken, says so and offers the forced action instead.
 */
import { type Api, ApiError } from './api.js';
import { append, attempt, byId, clear, h, toast } from './dom.js';
import { setMarkdown } from './markdown.js';
import type { DraftDetail, DraftItem, SkillDetail, SkillItem } from './skill-types.js';

type Tab = 'installed' | 'inbox';

/** A button that acts on the second click (the first asks), like deleting a session. */
function twoClick(button: HTMLButtonElement, label: string, ask: string, act: () => Promise<void>): void {
  button.addEventListener('click', () => {
    if (button.dataset.confirm !== 'true') {
      button.dataset.confirm = 'true';
      button.textContent = ask;
      setTimeout(() => {
        if (!button.isConnected) return;
        button.dataset.confirm = 'false';
        button.textContent = label;
      }, 3000);
      return;
    }
    void act();
  });
}

function when(iso: string | null): string {
  return iso ? iso.replace('T', ' ').slice(0, 16) : 'unknown time';
}

export class SkillsPanel {
  private readonly list = byId('skill-list');
  private readonly drafts = byId('draft-list');
  private readonly problems = byId('skill-problems');
  private readonly order = byId('skill-order');
  private readonly count = byId('skills-inbox-count');
  private readonly tabs: Record<Tab, HTMLButtonElement> = {
    installed: byId<HTMLButtonElement>('skills-tab-installed'),
    inbox: byId<HTMLButtonElement>('skills-tab-inbox'),
  };
  private generation = 0;

  constructor(private readonly api: Api) {
    for (const tab of ['installed', 'inbox'] as const)
      this.tabs[tab].addEventListener('click', () => this.select(tab));
  }

  private select(tab: Tab): void {
    for (const [name, button] of Object.entries(this.tabs)) {
      button.setAttribute('aria-selected', String(name === tab));
      byId(`skills-${name}`).hidden = name !== tab;
    }
  }

  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const [skills, drafts] = await Promise.all([
      attempt(() => this.api.listSkills()),
      attempt(() => this.api.listDrafts()),
    ]);
    if (generation !== this.generation) return;
    if (skills) {
      clear(this.list);
      if (skills.data.length === 0) this.list.appendChild(h('li', { class: 'empty' }, 'No skills installed'));
      for (const s of skills.data) this.list.appendChild(this.skillItem(s, false));
      for (const s of skills.shadowed) this.list.appendChild(this.skillItem(s, true));
      clear(this.problems);
      for (const w of skills.warnings)
        this.problems.appendChild(h('li', { 'data-testid': 'skill-problem' }, w));
      this.problems.hidden = skills.warnings.length === 0;
      this.order.textContent = `Folders, first wins: ${skills.dirs.map((d) => `${d.rank} ${d.label}`).join(' · ')}`;
    }
    if (drafts) {
      clear(this.drafts);
      if (drafts.data.length === 0) this.drafts.appendChild(h('li', { class: 'empty' }, 'No drafts waiting'));
      for (const d of drafts.data) this.drafts.appendChild(this.draftItem(d));
      this.count.textContent = drafts.data.length > 0 ? String(drafts.data.length) : '';
    }
  }

  /** A View button and the box it fills with `load`'s details (toggled). */
  private viewer(testid: string, load: () => Promise<SkillDetail | DraftDetail | undefined>) {
    const box = h('div', { class: 'skill-detail', hidden: true, 'data-testid': `${testid}-detail` });
    const button = h(
      'button',
      { class: 'small', 'aria-expanded': 'false', 'data-testid': `${testid}-view` },
      'View',
    );
    button.addEventListener('click', async () => {
      if (!box.hidden) {
        box.hidden = true;
        button.setAttribute('aria-expanded', 'false');
        return;
      }
      const detail = await load();
      if (!detail) return;
      clear(box);
      const facts: string[] = [];
      if ('dir' in detail && typeof detail.dir === 'string') facts.push(`Folder: ${detail.dir}`);
      if ('license' in detail && detail.license) facts.push(`License: ${detail.license}`);
      if ('allowed_tools' in detail && detail.allowed_tools.length > 0)
        facts.push(`Expects (advice only): ${detail.allowed_tools.join(' ')}`);
      facts.push(`Files: ${detail.files.join(', ') || 'none besides SKILL.md'}`);
      const body = h('div', { class: 'skill-body markdown', 'data-testid': `${testid}-body` });
      setMarkdown(body, detail.body || '_No instructions beyond the description._');
      append(box, ...facts.map((f) => h('p', { class: 'skill-fact' }, f)), body);
      box.hidden = false;
      button.setAttribute('aria-expanded', 'true');
    });
    return { box, button };
  }

  /** A note in `item` with a button that retries the action forced. */
  private offerForce(
    item: HTMLElement,
    testid: string,
    message: string,
    label: string,
    act: () => Promise<void>,
  ): void {
    item.querySelector('.skill-note')?.remove();
    const force = h('button', { class: 'small danger', 'data-testid': `${testid}-force` }, label);
    force.addEventListener('click', () => void act());
    item.appendChild(
      h('p', { class: 'skill-note', role: 'alert', 'data-testid': `${testid}-note` }, message, ' ', force),
    );
  }

  private skillItem(s: SkillItem, shadowed: boolean): HTMLElement {
    const item = h('li', {
      class: `skill${shadowed ? ' shadowed' : ''}`,
      'data-testid': 'skill-item',
      'data-name': s.name,
      'data-rank': String(s.rank),
    });
    const head = h(
      'div',
      { class: 'skill-head' },
      h('span', { class: 'skill-name' }, s.name),
      h('span', { class: 'badge', title: s.dir, 'data-testid': 'skill-source' }, `${s.rank} · ${s.source}`),
      shadowed ? h('span', { class: 'badge warn', title: `by ${s.shadowed_by ?? ''}` }, 'shadowed') : null,
      s.offered ? null : h('span', { class: 'badge', title: 'disable-model-invocation' }, 'not offered'),
    );
    const view = this.viewer('skill', () =>
      shadowed ? Promise.resolve(undefined) : attempt(() => this.api.getSkill(s.name)),
    );
    const actions = h('div', { class: 'skill-actions' }, shadowed ? null : view.button);
    if (!shadowed) {
      const remove = h('button', { class: 'small danger', 'data-testid': 'skill-remove' }, 'Remove');
      const run = async (force: boolean): Promise<void> => {
        try {
          await this.api.deleteSkill(s.name, force);
        } catch (err) {
          if (err instanceof ApiError && err.code === 'skill_not_owned')
            return this.offerForce(item, 'skill-remove', err.message, 'Remove anyway', () => run(true));
          toast((err as Error).message, 'error');
          return;
        }
        toast(`Removed the skill ${s.name}`);
        await this.refresh();
      };
      twoClick(remove, 'Remove', 'Remove?', () => run(false));
      actions.appendChild(remove);
    }
    append(item, head, h('p', { class: 'skill-desc' }, s.description), actions, view.box);
    return item;
  }

  private draftItem(d: DraftItem): HTMLElement {
    const item = h('li', { class: 'skill draft', 'data-testid': 'draft-item', 'data-name': d.name });
    const head = h(
      'div',
      { class: 'skill-head' },
      h('span', { class: 'skill-name' }, d.name),
      h('span', { class: 'badge' }, `drafted ${when(d.drafted_at)}`),
      d.valid ? null : h('span', { class: 'badge warn' }, 'invalid'),
    );
    const view = this.viewer('draft', () => attempt(() => this.api.getDraft(d.name)));
    const accept = h(
      'button',
      { class: 'small primary', 'data-testid': 'draft-accept', disabled: !d.valid },
      'Accept',
    );
    const acceptRun = async (force: boolean): Promise<void> => {
      let result: { name: string; note: string | null };
      try {
        result = await this.api.acceptDraft(d.name, force);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'skill_exists')
          return this.offerForce(item, 'draft-accept', err.message, 'Replace', () => acceptRun(true));
        toast((err as Error).message, 'error');
        return;
      }
      toast(`Accepted the skill ${result.name}${result.note ? `: ${result.note}` : ''}`);
      await this.refresh();
    };
    accept.addEventListener('click', () => void acceptRun(false));
    const reject = h('button', { class: 'small danger', 'data-testid': 'draft-reject' }, 'Reject');
    twoClick(reject, 'Reject', 'Reject?', async () => {
      if (!(await attempt(() => this.api.rejectDraft(d.name)))) return;
      toast(`Rejected the draft ${d.name}`);
      await this.refresh();
    });
    append(
      item,
      head,
      d.description ? h('p', { class: 'skill-desc' }, d.description) : null,
      d.session ? h('p', { class: 'skill-fact' }, `From session ${d.session.slice(0, 8)}`) : null,
      ...d.problems.map((p) => h('p', { class: 'skill-problem', 'data-testid': 'draft-problem' }, p)),
      d.conflicts_with
        ? h('p', { class: 'skill-fact' }, `A skill of this name is installed: ${d.conflicts_with}`)
        : null,
      h('div', { class: 'skill-actions' }, view.button, accept, reject),
      view.box,
    );
    return item;
  }
}

/**
 * The app's state and wiring: which session is open, its event stream, whether
 * a turn runs. Views render; this module decides.
 */
import { type Api, ApiError } from './api.js';
import { ChatView } from './chat.js';
import { Composer } from './composer.js';
import { attempt, byId, toast } from './dom.js';
import type { TurnInput } from './failure.js';
import { JournalControls } from './journal.js';
import { McpPanel } from './mcp-panel.js';
import { MemoryPanel } from './memory-panel.js';
import { ModeSelect } from './mode-select.js';
import { ModelBadge } from './model-badge.js';
import { Panels } from './panels.js';
import { SessionList, sessionTitle } from './sessions.js';
import { SettingsPanel } from './settings.js';
import { SkillsPanel } from './skills-panel.js';
import { EventStream, LIVE_ONLY } from './sse.js';
import { oneLine, truncate } from './text.js';
import type { ApprovalDecision, ImageInput, Session, StreamEvent } from './types.js';
import { UsageMeter } from './usage.js';
import { WorkflowsPanel } from './workflows-panel.js';
import { WorkingIndicator } from './working.js';

export class App {
  private session: Session | null = null;
  private stream: EventStream | null = null;
  private running = false;
  /** Set when a session was opened mid-turn: its history is incomplete until the turn ends. */
  private reloadOnDone = false;
  private readonly chat: ChatView;
  private readonly composer: Composer;
  private readonly sessions: SessionList;
  private readonly memory: MemoryPanel;
  private readonly settings: SettingsPanel;
  private readonly workflows: WorkflowsPanel;
  private readonly skills: SkillsPanel;
  private readonly mcp: McpPanel;
  private readonly panels: Panels;
  private readonly usage = new UsageMeter();
  private readonly badge = new ModelBadge();
  private readonly mode: ModeSelect;
  private readonly working = new WorkingIndicator();
  private readonly title = byId('session-title');
  private readonly journal: JournalControls;

  constructor(private readonly api: Api) {
    this.journal = new JournalControls(api, () => this.session?.id ?? null);
    this.chat = new ChatView(byId('messages'), {
      approve: (requestId, decision) => this.approve(requestId, decision),
      answer: (requestId, text) => this.answer(requestId, text),
      retry: (input) => this.retry(input),
    });
    this.composer = new Composer({
      send: (text, images) => this.send(text, images),
      stop: () => void this.stop(),
    });
    this.sessions = new SessionList(api, {
      select: (s) => {
        this.panels.sessionChosen();
        void this.open(s);
      },
      create: () => {
        this.panels.sessionChosen();
        this.newChat();
      },
      deleted: (id) => {
        if (this.session?.id === id) this.newChat();
      },
    });
    this.mode = new ModeSelect(api, (s) => {
      if (this.session?.id === s.id) this.session = s;
    });
    this.memory = new MemoryPanel(api);
    this.skills = new SkillsPanel(api);
    this.mcp = new McpPanel(api);
    this.settings = new SettingsPanel(api, (name, models) => this.badge.setProfiles(name, models));
    this.workflows = new WorkflowsPanel(api, {
      openSession: (id) => {
        this.panels.chatChosen();
        void this.openById(id);
      },
    });
    this.panels = new Panels(
      (name) => {
        if (name === 'workflows') void this.workflows.refresh();
        else if (name === 'skills') void this.skills.refresh();
        else if (name === 'mcp') void this.mcp.refresh();
        else if (name === 'memory') void this.memory.refresh();
        else void this.settings.refresh();
      },
      (name) => {
        if (name === 'workflows') this.workflows.hidden();
      },
    );
    for (const prefix of ['', 'session-']) {
      byId(`${prefix}export-markdown`).addEventListener('click', () => void this.exportAs('markdown'));
      byId(`${prefix}export-pdf`).addEventListener('click', () => void this.exportAs('pdf'));
    }
  }

  async start(): Promise<void> {
    const wanted = sessionInUrl();
    this.newChat();
    await Promise.all([this.sessions.refresh(), this.settings.refresh(), this.mode.load()]);
    // A reload comes back to the session it showed (still running, perhaps).
    if (wanted && !this.session) {
      const session = await attempt(() => this.api.getSession(wanted));
      if (session && !this.session) await this.open(session);
    }
    // Not when the user is already somewhere (e.g. renaming a session listed a moment ago):
    // taking the focus would end what they started.
    const active = document.activeElement;
    if (active === null || active === document.body) this.composer.focus();
  }

  /** Opens a session by id (a workflow's agent node). */
  private async openById(id: string): Promise<void> {
    const session = await attempt(() => this.api.getSession(id));
    if (session) await this.open(session);
  }

  /** An empty chat; the session is created on the first send. */
  newChat(): void {
    this.closeStream();
    this.session = null;
    this.reloadOnDone = false;
    this.chat.reset();
    this.usage.reset();
    this.setRunning(false);
    this.title.textContent = 'New chat';
    this.badge.setSession(null);
    this.mode.setSession(null);
    this.sessions.setActive(null);
    setSessionInUrl(null);
    this.setExportEnabled(false);
    this.composer.focus();
  }

  /**
   * Opens a session: renders its stored history, then follows live events only
   * (the stored messages already hold everything the server's backlog would replay).
   * Opened mid-turn, the running turn's history is reloaded once it is done.
   */
  async open(session: Session): Promise<void> {
    this.closeStream();
    this.session = session;
    this.sessions.setActive(session.id);
    setSessionInUrl(session.id);
    this.title.textContent = sessionTitle(session);
    this.badge.setSession(session);
    this.mode.setSession(session);
    this.setExportEnabled(true);
    const [fresh, history] = await Promise.all([
      attempt(() => this.api.getSession(session.id)),
      attempt(() => this.api.messages(session.id)),
    ]);
    if (this.session?.id !== session.id) return; // the user moved on meanwhile
    const current = fresh ?? session;
    this.session = current;
    this.title.textContent = sessionTitle(current);
    this.badge.setSession(current);
    this.mode.setSession(current);
    this.chat.renderHistory(history?.data ?? [], current.busy, current.awaiting_client_calls);
    // Its sub-agents' cards under the calls that started them (their transcripts load when opened).
    if (current.usage.subagents?.count)
      void attempt(() => this.chat.subagents.loadStored(current.id, this.api));
    this.usage.reset(current.usage);
    this.setRunning(current.busy);
    this.reloadOnDone = current.busy;
    await this.connect(current.id).ready;
    this.composer.focus();
  }

  private connect(sessionId: string): EventStream {
    const status = byId('connection');
    this.stream = new EventStream({
      // The token goes in the Authorization header (never in the URL, which servers log).
      url: this.api.url(`/v1/sessions/${encodeURIComponent(sessionId)}/events`),
      headers: () => this.api.headers(),
      reauthorize: () => this.api.reauthorize(this.api.token ? 'invalid' : 'missing'),
      after: LIVE_ONLY,
      onEvent: (event) => this.onEvent(event),
      // Events were missed beyond what the server keeps: render the stored session afresh.
      onGap: () => {
        if (this.session?.id === sessionId) void this.open(this.session);
      },
      onStatus: (s) => {
        status.dataset.status = s;
        status.textContent =
          s === 'open' || s === 'connecting' ? '' : s === 'failed' ? 'disconnected' : 'reconnecting…';
      },
    });
    return this.stream;
  }

  private closeStream(): void {
    this.stream?.close();
    this.stream = null;
  }

  private onEvent(event: StreamEvent): void {
    this.chat.handleEvent(event);
    this.journal.onEvent(event);
    // A sub-agent's event: its usage counts in the session's; nothing else of it is the session's own.
    if (event.parent) {
      if (event.type === 'usage') this.usage.add(event.usage, event.costUsd, true);
      return;
    }
    this.working.onEvent(event);
    if (event.type === 'title') this.retitle(event.sessionId, event.title);
    else if (event.type === 'turn_start') this.setRunning(true);
    else if (event.type === 'usage') this.usage.add(event.usage, event.costUsd);
    else if (event.type === 'done') {
      this.setRunning(false);
      void this.sessions.refresh();
      if (this.reloadOnDone && this.session) void this.open(this.session);
    }
  }

  /** The automatic title arrived (after the first turn): the header and the list show it. */
  private retitle(sessionId: string, title: string): void {
    if (this.session?.id === sessionId) {
      this.session = { ...this.session, title };
      this.title.textContent = sessionTitle(this.session);
    }
    this.sessions.retitle(sessionId, title);
  }

  private async send(text: string, images: ImageInput[]): Promise<boolean> {
    if (!this.session) {
      const title = truncate(oneLine(text), 60) || 'Image';
      const pending = this.mode.pending;
      let created = await attempt(() => this.api.createSession(title));
      if (!created) return false;
      // The mode chosen for the new chat, before its first message goes.
      if (pending) created = (await attempt(() => this.api.setWorkMode(created!.id, pending))) ?? created;
      this.sessions.upsert(created);
      await this.open(created);
    }
    const session = this.session;
    if (!session) return false;
    const undo = this.chat.addLocalUser(text, images);
    this.setRunning(true);
    try {
      await this.api.prompt(session.id, text, images);
      return true;
    } catch (err) {
      undo();
      this.setRunning(false);
      const busy = err instanceof ApiError && err.status === 409;
      toast(
        busy ? 'This session is busy: wait for the turn to end or press Stop' : (err as Error).message,
        'error',
      );
      return false;
    }
  }

  /**
   * Runs a failed turn's message again. The server reuses the stored message (it is not
   * stored twice); when the failed turn got part of an answer, it is sent as a new message.
   */
  private async retry(input: TurnInput): Promise<boolean> {
    if (this.running) {
      toast('A turn is running: wait for it to end or press Stop', 'info');
      return false;
    }
    const session = this.session;
    if (!session) return this.send(input.text, input.images);
    this.chat.expectRetry(input);
    this.setRunning(true);
    try {
      await this.api.retry(session.id);
      return true;
    } catch (err) {
      this.chat.expectRetry(null);
      this.setRunning(false);
      if (err instanceof ApiError && err.code === 'nothing_to_retry')
        return this.send(input.text, input.images);
      const busy = err instanceof ApiError && err.code === 'session_busy';
      toast(
        busy ? 'This session is busy: wait for the turn to end or press Stop' : (err as Error).message,
        'error',
      );
      return false;
    }
  }

  private async stop(): Promise<void> {
    if (!this.session || !this.running) return;
    const result = await attempt(() => this.api.cancel(this.session!.id));
    if (result && !result.cancelled) this.setRunning(false);
  }

  private async approve(requestId: string, decision: ApprovalDecision): Promise<boolean> {
    if (!this.session) return false;
    return Boolean(await attempt(() => this.api.approve(this.session!.id, requestId, decision)));
  }

  private async answer(requestId: string, text: string): Promise<boolean> {
    if (!this.session) return false;
    return Boolean(await attempt(() => this.api.answer(this.session!.id, requestId, text)));
  }

  private setRunning(running: boolean): void {
    this.running = running;
    this.composer.setRunning(running);
    this.working.set(running);
  }

  /** The export buttons of the top bar and of Settings' "This session". */
  private setExportEnabled(enabled: boolean): void {
    for (const id of ['export-markdown', 'export-pdf', 'session-export-markdown', 'session-export-pdf'])
      byId<HTMLButtonElement>(id).disabled = !enabled;
    this.journal.setSession(enabled);
  }

  private async exportAs(format: 'markdown' | 'pdf'): Promise<void> {
    if (!this.session) return;
    const file = await attempt(() => this.api.exportSession(this.session!.id, format));
    if (!file) return;
    const url = URL.createObjectURL(file.blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = file.name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

const SESSION_HASH = /^#session=([\w.-]+)$/;

/** The session named in the address (`#session=<id>`), kept there so a reload reopens it. */
function sessionInUrl(): string | null {
  return SESSION_HASH.exec(window.location.hash)?.[1] ?? null;
}

function setSessionInUrl(id: string | null): void {
  const url = new URL(window.location.href);
  url.hash = id ? `session=${id}` : '';
  const next = id ? url.toString() : url.toString().replace(/#$/, '');
  if (next !== window.location.href) window.history.replaceState(null, '', next);
}

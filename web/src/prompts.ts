/** Inline approval prompts and questions, shown in the chat where the turn waits. */
import { approvalPreview } from './approval-preview.js';
import { h } from './dom.js';
import { prettyArgs } from './text.js';
import type { AgentEvent, ApprovalDecision } from './types.js';

type ApprovalRequest = Extract<AgentEvent, { type: 'approval_request' }>;
type Question = Extract<AgentEvent, { type: 'question' }>;

const DECISION_LABEL: Record<ApprovalDecision, string> = {
  once: 'Allowed once',
  always: 'Always allowed',
  reject: 'Rejected',
};

export class ApprovalPrompt {
  readonly root: HTMLElement;
  private readonly buttons: HTMLButtonElement[] = [];
  private readonly outcome: HTMLElement;

  constructor(
    readonly request: ApprovalRequest,
    decide: (decision: ApprovalDecision) => Promise<boolean>,
  ) {
    this.outcome = h('div', { class: 'prompt-outcome', 'data-testid': 'approval-outcome' });
    const make = (decision: ApprovalDecision, label: string, cls: string): HTMLButtonElement => {
      const button = h('button', { class: cls, 'data-testid': `approve-${decision}` }, label);
      button.addEventListener('click', async () => {
        this.setBusy(true);
        const ok = await decide(decision);
        if (ok) this.resolve(decision);
        else this.setBusy(false);
      });
      this.buttons.push(button);
      return button;
    };
    // What would happen, in full, before the user answers (the raw arguments stay one click away).
    const preview = approvalPreview(request.tool, request.args, request.part, request.diff);
    const subject = preview.kind === 'command' ? undefined : request.subject;
    this.root = h(
      'div',
      {
        class: 'prompt approval',
        role: 'group',
        'aria-label': `Approve ${request.tool}`,
        'data-testid': 'approval',
        'data-request-id': request.requestId,
      },
      h(
        'div',
        { class: 'prompt-title' },
        // A sub-agent's call, asked for in its name.
        request.agent
          ? h('strong', { class: 'prompt-agent', 'data-testid': 'approval-agent' }, request.agent.label)
          : null,
        request.agent ? ' wants to run ' : 'Allow ',
        h('code', {}, request.tool),
        preview.kind === 'command' ? ' to run this command' : '',
        subject ? ' on ' : '',
        subject ? h('code', {}, subject) : null,
        request.agent ? '. Allow it?' : '?',
      ),
      request.reason ? h('div', { class: 'prompt-reason' }, request.reason) : null,
      preview.node,
      preview.kind === 'arguments'
        ? null
        : h(
            'details',
            { class: 'prompt-args' },
            h('summary', {}, 'Arguments'),
            h('pre', {}, prettyArgs(request.args)),
          ),
      h(
        'div',
        { class: 'prompt-actions' },
        make('once', 'Allow once', 'primary'),
        make('always', 'Always', ''),
        make('reject', 'Reject', 'danger'),
      ),
      this.outcome,
    );
  }

  /** Marks the prompt answered (by this page or by another client). */
  resolve(decision: ApprovalDecision, message?: string): void {
    this.setBusy(true);
    this.root.dataset.decision = decision;
    this.outcome.textContent = message ? `${DECISION_LABEL[decision]}: ${message}` : DECISION_LABEL[decision];
  }

  private setBusy(busy: boolean): void {
    for (const b of this.buttons) b.disabled = busy;
  }
}

export class QuestionPrompt {
  readonly root: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly controls: Array<HTMLButtonElement | HTMLTextAreaElement> = [];
  private readonly outcome: HTMLElement;

  constructor(
    readonly question: Question,
    answer: (text: string) => Promise<boolean>,
  ) {
    this.outcome = h('div', { class: 'prompt-outcome', 'data-testid': 'question-outcome' });
    this.input = h('textarea', {
      rows: '2',
      placeholder: 'Your answer…',
      'aria-label': 'Answer',
      'data-testid': 'question-input',
    });
    const submit = async (text: string): Promise<void> => {
      if (!text.trim()) return;
      this.setBusy(true);
      if (await answer(text)) this.resolve(text);
      else this.setBusy(false);
    };
    const send = h('button', { class: 'primary', 'data-testid': 'question-send' }, 'Answer');
    send.addEventListener('click', () => void submit(this.input.value));
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        void submit(this.input.value);
      }
    });
    const options = (question.options ?? []).map((option) => {
      const b = h('button', { class: 'option', 'data-testid': 'question-option' }, option);
      b.addEventListener('click', () => void submit(option));
      return b;
    });
    this.controls.push(send, this.input, ...options);
    this.root = h(
      'div',
      { class: 'prompt question', 'data-testid': 'question', 'data-request-id': question.requestId },
      h(
        'div',
        { class: 'prompt-title' },
        question.agent ? h('strong', { class: 'prompt-agent' }, `${question.agent.label} asks: `) : null,
        question.question,
      ),
      options.length > 0 ? h('div', { class: 'prompt-actions' }, ...options) : null,
      h('div', { class: 'prompt-answer' }, this.input, send),
      this.outcome,
    );
  }

  resolve(text: string): void {
    this.setBusy(true);
    this.root.dataset.answered = 'true';
    this.outcome.textContent = `Answered: ${text}`;
  }

  private setBusy(busy: boolean): void {
    for (const c of this.controls) c.disabled = busy;
  }
}

/** The approval requests and questions of one transcript, each shown once (a reconnect may repeat one). */
export class Asks {
  private readonly approvals = new Map<string, ApprovalPrompt>();
  private readonly questions = new Map<string, QuestionPrompt>();

  constructor(
    private readonly actions: {
      approve(requestId: string, decision: ApprovalDecision): Promise<boolean>;
      answer(requestId: string, text: string): Promise<boolean>;
    },
  ) {}

  clear(): void {
    this.approvals.clear();
    this.questions.clear();
  }

  /** The prompt of a new approval request (undefined: it is shown already). */
  approval(event: ApprovalRequest): ApprovalPrompt | undefined {
    if (this.approvals.has(event.requestId)) return undefined;
    const prompt = new ApprovalPrompt(event, (d) => this.actions.approve(event.requestId, d));
    this.approvals.set(event.requestId, prompt);
    return prompt;
  }

  /** The prompt of a new question (undefined: it is shown already). */
  question(event: Question): QuestionPrompt | undefined {
    if (this.questions.has(event.requestId)) return undefined;
    const prompt = new QuestionPrompt(event, (text) => this.actions.answer(event.requestId, text));
    this.questions.set(event.requestId, prompt);
    return prompt;
  }

  resolved(requestId: string, decision: ApprovalDecision, message?: string): void {
    this.approvals.get(requestId)?.resolve(decision, message);
  }

  /** The turn ended: requests nobody answered can no longer be. */
  expire(): void {
    for (const prompt of this.approvals.values())
      if (!prompt.root.dataset.decision) prompt.resolve('reject', 'expired');
  }
}

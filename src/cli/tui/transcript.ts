/**
 * The transcript: the `AgentEvent` stream (the same one every face renders) turned
 * into components of a pi-tui Container. Streaming text goes to a StreamingMarkdown,
 * each tool call to one ToolLine updated in place, sub-agents' events to nested lines
 * under the tool call that runs them.
 */
import type { Component, Container, MarkdownTheme } from '@mariozechner/pi-tui';
import type { AgentEvent, ToolCallRecord } from '../../agent/index.js';
import { FILE_WRITERS } from '../../runtime/edits.js';
import { changedLine } from '../../runtime/journal.js';
import { RULE_CALL_PREFIX } from '../../runtime/rules.js';
import { type Expansion, TextBlock, ThinkingBlock, ToolLine } from './blocks.js';
import { StreamingMarkdown } from './stream-md.js';
import { bold, cyan, dim, green, red, yellow } from './theme.js';

export type Tone = 'info' | 'dim' | 'error' | 'success';

const TONE: Record<Tone, (s: string) => string> = {
  info: (s) => s,
  dim,
  error: red,
  success: green,
};

/** Tools whose diff is shown under their line: the file writers, and patches. */
export const DIFF_TOOLS: ReadonlySet<string> = new Set([...FILE_WRITERS, 'apply_patch']);

export interface TranscriptDeps {
  markdownTheme(): MarkdownTheme;
  /** The diff a file-writing call makes (computed before it runs); undefined when none. */
  diffOf(record: ToolCallRecord): Promise<string | undefined>;
  /** Something changed: draw again. */
  changed(): void;
}

export class Transcript {
  readonly expansion: Expansion = { tools: false, thinking: false };
  private answer: StreamingMarkdown | undefined;
  /** The turn streamed answer text (a rule's turn streams none). */
  private wrote = false;
  /** How a rule's call (`!ls`, `/read …`) ended, this prompt. */
  private ruleCall: ToolCallRecord['state'] | undefined;
  private thinking: ThinkingBlock | undefined;
  private readonly tools = new Map<string, ToolLine>();
  /** Sub-agents running now (by session id), for the status line. */
  readonly runningAgents = new Set<string>();
  /** Context use: input tokens of the last model call, and the window when a compaction said it. */
  contextTokens = 0;
  contextLimit: number | undefined;
  costUsd = 0;

  constructor(
    private readonly box: Container,
    private readonly deps: TranscriptDeps,
  ) {}

  /** How a file-writing call's diff is computed (set once the runtime exists). */
  setDiff(diffOf: TranscriptDeps['diffOf']): void {
    this.deps.diffOf = diffOf;
  }

  /** The user's message as sent. */
  user(text: string, note?: string): void {
    this.endBlocks();
    const gap = this.box.children.length > 0 ? '\n' : '';
    this.add(new TextBlock(`${gap}${bold(cyan('›'))} ${text}${note ? ` ${dim(note)}` : ''}\n`));
  }

  print(text: string, tone: Tone = 'info', markdown = false): void {
    this.endBlocks();
    if (markdown) {
      const md = new StreamingMarkdown(this.deps.markdownTheme());
      md.append(text);
      this.add(md);
    } else this.add(new TextBlock(TONE[tone](text.replace(/\n$/, ''))));
  }

  /** A dimmed line shown until the returned function takes it away. */
  transient(text: string): () => void {
    this.endBlocks();
    const line = new TextBlock(dim(text));
    this.add(line);
    return () => this.box.removeChild(line);
  }

  /** A stored answer (a session reopened): Markdown, after a gap when it follows tool lines. */
  storedAnswer(text: string): void {
    this.endBlocks();
    if (this.box.children.at(-1) instanceof ToolLine) this.add(new TextBlock(''));
    this.print(text, 'info', true);
  }

  /** Stored thinking: collapsed like a live one (Ctrl-T opens it). */
  storedThinking(text: string): void {
    this.endBlocks();
    const block = new ThinkingBlock(this.expansion);
    block.text = text;
    this.add(block);
  }

  /** A stored call, in its final state with its output (Ctrl-O); no diff: the file may have changed since. */
  storedTool(record: ToolCallRecord): ToolLine {
    this.endBlocks();
    const line = new ToolLine(record, this.expansion);
    this.tools.set(record.callId, line);
    this.add(line);
    return line;
  }

  /** A rule's output (`!ls`), capped as a live rule turn shows it. */
  ruleOutput(text: string): void {
    this.note(clip(text));
  }

  /** Blocks drawn elsewhere first (notes.ts), added after what the transcript shows. */
  adopt(blocks: readonly Component[]): void {
    this.endBlocks();
    for (const b of blocks) this.add(b);
    this.deps.changed();
  }

  clear(): void {
    this.box.clear();
    this.tools.clear();
    this.endBlocks();
  }

  /** Draws the answers again with a new Markdown theme (highlighting loaded). */
  retheme(): void {
    for (const c of this.box.children)
      if (c instanceof StreamingMarkdown) c.setTheme(this.deps.markdownTheme());
  }

  event(e: AgentEvent): void {
    switch (e.type) {
      case 'turn_start':
        this.wrote = false;
        this.answer = undefined;
        break;
      case 'text_delta':
        this.wrote = true;
        this.thinking = undefined;
        if (!this.answer) {
          // A gap between tool lines and the answer that follows them.
          if (this.box.children.at(-1) instanceof ToolLine) this.add(new TextBlock(''));
          this.answer = new StreamingMarkdown(this.deps.markdownTheme());
          this.add(this.answer);
        }
        this.answer.append(e.text);
        break;
      case 'thinking_delta':
        if (!this.thinking) {
          this.answer = undefined;
          this.thinking = new ThinkingBlock(this.expansion);
          this.add(this.thinking);
        }
        this.thinking.text += e.text;
        break;
      case 'tool_update':
        this.endBlocks();
        this.toolUpdate(e.record);
        if (e.record.callId.startsWith(RULE_CALL_PREFIX)) this.ruleCall = e.record.state;
        break;
      case 'subagent':
        this.subagent(e);
        break;
      case 'plan': {
        const marks = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;
        const head = e.title ? `${bold(e.title)}\n` : '';
        this.note(`${head}${e.items.map((i) => `  ${marks[i.status]} ${i.content}`).join('\n')}`);
        break;
      }
      case 'notice':
        this.note(yellow(`${e.title}: ${e.body}`));
        break;
      case 'journal':
        this.note(dim(`${changedLine(e.files)} · /diff`));
        break;
      case 'compaction':
        this.contextTokens = e.tokensAfter;
        this.contextLimit = e.limit;
        this.note(
          dim(`context compacted: ${e.tokensBefore} → ${e.tokensAfter} tokens (${e.steps.join(', ')})`),
        );
        break;
      case 'usage':
        // One model call ended: the next one's text (after tools or a steering message) is a new block.
        this.answer = undefined;
        this.contextTokens = e.usage.inputTokens + e.usage.outputTokens;
        this.costUsd += e.costUsd;
        break;
      case 'retry':
        if (e.discard) this.dropAnswer();
        this.note(
          yellow(
            `… ${e.kind === 'timeout' ? 'model not answering' : 'model call failed'}, retry ${e.attempt}/${e.maxRetries} (${e.reason})`,
          ),
        );
        break;
      case 'fallback':
        this.dropAnswer();
        this.note(yellow(`… falling back from ${e.from} to ${e.to}: ${e.reason}`));
        break;
      case 'error':
        this.note(red(`error: ${e.message}`));
        break;
      case 'approval_result':
        if (e.decision === 'reject') this.note(red(`✗ rejected${e.message ? `: ${e.message}` : ''}`));
        break;
      case 'done': {
        this.endBlocks();
        // A rule's turn (`!ls`, `/read …`) streams no answer: its text is the tool's output
        // (a failed or refused call's is already under its tool line).
        const underLine = this.ruleCall !== undefined && this.ruleCall !== 'completed';
        if (!this.wrote && e.reason === 'completed' && e.text.trim() && !underLine)
          this.add(new TextBlock(clip(e.text)));
        // A rule's command that exited non-zero says so.
        if (e.reason === 'completed' && e.message && this.ruleCall === 'completed')
          this.note(yellow(e.message));
        this.ruleCall = undefined;
        if (e.reason === 'cancelled') this.note(yellow('interrupted'));
        else if (e.reason !== 'completed' && e.reason !== 'error' && e.message) this.note(yellow(e.message));
        break;
      }
      default:
        break;
    }
    this.deps.changed();
  }

  private toolUpdate(record: ToolCallRecord): void {
    let line = this.tools.get(record.callId);
    if (!line) {
      line = new ToolLine(record, this.expansion);
      this.tools.set(record.callId, line);
      this.add(line);
      if (DIFF_TOOLS.has(record.name)) {
        const target = line;
        void this.deps.diffOf(record).then((d) => {
          if (d !== undefined) {
            target.diff = d.split('\n');
            this.deps.changed();
          }
        });
      }
    }
    line.record = record;
  }

  private subagent(e: Extract<AgentEvent, { type: 'subagent' }>): void {
    const line = this.tools.get(e.callId);
    const inner = e.event;
    const id = e.agent.sessionId;
    let status: string | undefined;
    if (inner.type === 'turn_start') {
      this.runningAgents.add(id);
      status = `${e.agent.label}: started`;
    } else if (inner.type === 'tool_update')
      status = `${e.agent.label}: ⏺ ${inner.record.title} · ${inner.record.state}`;
    else if (inner.type === 'text_delta') status = `${e.agent.label}: writing…`;
    else if (inner.type === 'done') {
      this.runningAgents.delete(id);
      status = `${e.agent.label}: ${inner.reason === 'completed' ? 'done' : inner.reason}`;
    }
    if (status && line) line.children.set(id, status);
  }

  /** The text of the model call that failed is dropped: the next one replaces it. */
  private dropAnswer(): void {
    if (this.answer) this.box.removeChild(this.answer);
    if (this.thinking) this.box.removeChild(this.thinking);
    this.endBlocks();
  }

  private note(text: string): void {
    this.endBlocks();
    this.add(new TextBlock(text));
  }

  private endBlocks(): void {
    this.answer = undefined;
    this.thinking = undefined;
  }

  private add(c: Component): void {
    this.box.addChild(c);
  }
}

/** At most `max` lines of a rule's output (the tool line's Ctrl-O shows all of it). */
function clip(text: string, max = 40): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length <= max) return `${lines.join('\n')}\n`;
  return `${lines.slice(0, max).join('\n')}\n${dim(`… ${lines.length - max} more lines (Ctrl-O shows the tool's output)`)}\n`;
}

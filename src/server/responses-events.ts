/**
 * A turn's events as a Responses API response: `ResponseBuilder` turns each agent event
 * into the stream events OpenAI sends (`response.created`, `response.in_progress`,
 * `response.output_item.added`, `response.content_part.added`,
 * `response.output_text.delta`/`.done`, `response.reasoning_text.*` for thinking,
 * `response.content_part.done`, `response.output_item.done`, then `response.completed`,
 * `response.incomplete` or `response.failed`: a failed or cancelled turn's message item is
 * `incomplete`, and an `error` event follows, which the SDKs throw on), numbered by `sequence_number`, and keeps
 * the output items for the whole response. Text runs into one message item (a new
 * paragraph after tool activity); thinking between texts starts a reasoning item, and
 * the text after it a new message, so the last item is the answer. A turn that stops
 * for the client's function tools ends with one `function_call` item per call (added,
 * its arguments as one `response.function_call_arguments.delta` and `.done`, done),
 * then `response.completed`, as OpenAI sends them. Under a response format the answer
 * is held and sent whole once checked (`holdText`).
 */
import type { AgentEvent, StopReason } from '../agent/events.js';
import type { ToolCallPart } from '../llm/types.js';
import { randomUUID } from '../util/random-id.js';
import type { ApiErrorBody } from './errors.js';
import { wireToolCalls } from './openai-tools.js';
import { progressOf } from './progress.js';
import type { TextConfig } from './responses-format.js';

type Json = Record<string, unknown>;
type Done = Extract<AgentEvent, { type: 'done' }>;

export interface ResponseMeta {
  id: string;
  model: string;
  created_at: number;
  instructions: string | null;
  previous_response_id: string | null;
  store: boolean;
  metadata: Record<string, string>;
  /** Tea: the session the turn ran in. */
  session_id: string;
  /** The request's function tools, tool choice and parallel_tool_calls, echoed. */
  tools: readonly object[];
  tool_choice: unknown;
  parallel_tool_calls: boolean;
  /** The request's text format, echoed (`{ format: { type: 'text' } }` when it gave none). */
  text: TextConfig;
  /** The request's sampling, echoed (null: the profile's). */
  temperature?: number | null;
  top_p?: number | null;
  max_output_tokens?: number | null;
}

export interface BuilderOptions {
  /** Tea: tool starts and ends as `tea.progress` events. */
  progress?: boolean;
  /**
   * The answer is checked against a response format: its text goes out whole at the
   * end, once checked (as chat completions streams it), so that a refused first answer
   * and the repair round never reach the client; a turn that stops for the client's
   * function calls carries only them (its text is not the answer).
   */
  holdText?: boolean;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';

interface OpenItem {
  kind: 'message' | 'reasoning';
  index: number;
  id: string;
  text: string;
}

const STATUS: Record<StopReason, ResponseStatus> = {
  completed: 'completed',
  doom_loop: 'completed',
  max_iterations: 'incomplete',
  budget: 'incomplete',
  cancelled: 'cancelled',
  error: 'failed',
  // The turn waits for the client's function call outputs: OpenAI's response is completed then.
  client_tools: 'completed',
};

function itemId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}

export class ResponseBuilder {
  readonly output: Json[] = [];
  private seq = 0;
  private open: OpenItem | undefined;
  private toolSinceText = false;
  private wroteText = false;
  private usage: Json | null = null;
  private status: ResponseStatus = 'in_progress';
  private error: Json | null = null;
  private incomplete: Json | null = null;
  /** Where the current model call began: how many items there were, and the open item's length. */
  private mark: { items: number; open?: { index: number; length: number } } = { items: 0 };
  /** Items of model calls that were retried or fell back (their stream broke): not in the final output. */
  private readonly dropped = new Set<number>();

  constructor(
    readonly meta: ResponseMeta,
    private readonly opts: BuilderOptions = {},
  ) {}

  /** The response object as it stands. */
  response(): Json {
    const m = this.meta;
    return {
      id: m.id,
      object: 'response',
      created_at: m.created_at,
      status: this.status,
      background: false,
      error: this.error,
      incomplete_details: this.incomplete,
      instructions: m.instructions,
      max_output_tokens: m.max_output_tokens ?? null,
      max_tool_calls: null,
      model: m.model,
      output: this.dropped.size ? this.output.filter((_, i) => !this.dropped.has(i)) : this.output,
      parallel_tool_calls: m.parallel_tool_calls,
      previous_response_id: m.previous_response_id,
      reasoning: { effort: null, summary: null },
      store: m.store,
      temperature: m.temperature ?? null,
      text: m.text,
      tool_choice: m.tool_choice,
      tools: m.tools,
      top_p: m.top_p ?? null,
      truncation: 'auto',
      usage: this.usage,
      user: null,
      metadata: m.metadata,
      session_id: m.session_id,
    };
  }

  private event(type: string, fields: Json): Json {
    return { type, sequence_number: this.seq++, ...fields };
  }

  /** `response.created` and `response.in_progress`. */
  start(): Json[] {
    return [
      this.event('response.created', { response: this.response() }),
      this.event('response.in_progress', { response: this.response() }),
    ];
  }

  /** The stream events for one agent event (none for most). */
  push(e: AgentEvent): Json[] {
    if (e.type === 'text_delta') {
      if (this.opts.holdText) return [];
      const out = this.openAs('message');
      const text = this.wroteText && this.toolSinceText ? `\n\n${e.text}` : e.text;
      this.toolSinceText = false;
      this.wroteText = true;
      this.open!.text += text;
      out.push(this.delta('response.output_text.delta', text));
      return out;
    }
    if (e.type === 'thinking_delta') {
      const out = this.openAs('reasoning');
      this.open!.text += e.text;
      out.push(this.delta('response.reasoning_text.delta', e.text));
      return out;
    }
    if (e.type === 'usage') this.markCall();
    if ((e.type === 'retry' && e.discard) || e.type === 'fallback') return this.discardCall();
    if (e.type === 'tool_update') {
      this.markCall();
      this.toolSinceText = true;
      const progress = this.opts.progress ? progressOf(e) : undefined;
      return progress ? [this.event('tea.progress', { progress })] : [];
    }
    return [];
  }

  /** A model call ended (or its tools ran): what the next one writes starts here. */
  private markCall(): void {
    const o = this.open;
    this.mark = {
      items: this.output.length,
      ...(o ? { open: { index: o.index, length: o.text.length } } : {}),
    };
  }

  /**
   * The current model call broke off after streaming and is tried again (or on a fallback
   * profile): what it wrote was already sent, so its item closes as `incomplete`, and the
   * final output leaves it out (an item it only added to keeps its earlier text).
   */
  private discardCall(): Json[] {
    const { items, open } = this.mark;
    const grew = open !== undefined && textOf(this.output[open.index]!).length > open.length;
    const openGrew =
      open !== undefined && this.open?.index === open.index && this.open.text.length > open.length;
    if (this.output.length === items && !grew && !openGrew) return [];
    const out = this.close('incomplete');
    for (let i = items; i < this.output.length; i++) this.dropped.add(i);
    if (open?.length === 0) this.dropped.add(open.index);
    else if (open) {
      const item = this.output[open.index]!;
      const content = (item.content as Json[]).map((part) => ({
        ...part,
        text: textOf(item).slice(0, open.length),
      }));
      this.output[open.index] = {
        ...item,
        ...(item.type === 'message' ? { status: 'completed' } : {}),
        content,
      };
    }
    this.wroteText = this.output.some((it, i) => !this.dropped.has(i) && it.type === 'message');
    this.toolSinceText = false;
    this.markCall();
    return out;
  }

  /** Closes the open item and ends the response: `response.completed`, `.incomplete` or `.failed` (failed or cancelled). */
  finish(done: Done | undefined, error: ApiErrorBody['error'] | undefined): Json[] {
    const out: Json[] = [];
    // A prompt a rule answered streams no text: its tool's output is the answer. A held
    // (checked) answer goes out here too; a held turn that stops for calls carries only them.
    const callsOnly = this.opts.holdText === true && done?.clientCalls !== undefined;
    const failed = !done || done.reason === 'error' || done.reason === 'cancelled';
    if (!failed && !this.wroteText && done.text && !callsOnly) {
      out.push(...this.openAs('message'));
      this.open!.text = done.text;
      out.push(this.delta('response.output_text.delta', done.text));
    }
    // A message cut short by a failure is not an answer: its item says so.
    out.push(...this.close(failed ? 'incomplete' : 'completed'));
    if (done?.clientCalls) out.push(...this.functionCalls(done.clientCalls));
    if (done) {
      const u = done.usage;
      this.usage = {
        input_tokens: u.inputTokens,
        input_tokens_details: { cached_tokens: u.cachedInputTokens ?? 0 },
        output_tokens: u.outputTokens,
        output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
        total_tokens: u.inputTokens + u.outputTokens,
      };
    }
    if (failed) {
      // Cancelled through the session API: not an answer either; status cancelled.
      this.status = done?.reason === 'cancelled' ? 'cancelled' : 'failed';
      const body = error ?? {
        message: done?.message ?? 'the turn ended without an answer',
        type: 'server_error',
        param: null,
        code: 'server_error',
      };
      this.error = { code: body.code, message: body.message };
      out.push(this.event('response.failed', { response: this.response() }));
      // Then an `error` event: the official SDKs throw on it (an event whose data has an
      // `error`), where a `response.failed` alone is taken as the turn's final output.
      const { code, message, param } = body;
      out.push(this.event('error', { code, message, param, error: body }));
      return out;
    }
    this.status = STATUS[done.reason];
    if (this.status === 'incomplete') this.incomplete = { reason: done.reason };
    const type = this.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
    out.push(this.event(type, { response: this.response() }));
    return out;
  }

  /** The calls that wait for the client as `function_call` items, with their stream events. */
  private functionCalls(calls: readonly ToolCallPart[]): Json[] {
    return wireToolCalls(calls).flatMap((c) => {
      const index = this.output.length;
      const { name, arguments: args } = c.function;
      const item = { type: 'function_call', id: itemId('fc'), call_id: c.id, name, arguments: args };
      const done = { ...item, status: 'completed' };
      this.output.push(done);
      const where = { item_id: item.id, output_index: index };
      return [
        this.event('response.output_item.added', {
          output_index: index,
          item: { ...item, arguments: '', status: 'in_progress' },
        }),
        this.event('response.function_call_arguments.delta', { ...where, delta: args }),
        this.event('response.function_call_arguments.done', { ...where, name, arguments: args }),
        this.event('response.output_item.done', { output_index: index, item: done }),
      ];
    });
  }

  private delta(type: string, delta: string): Json {
    const o = this.open!;
    return this.event(type, {
      item_id: o.id,
      output_index: o.index,
      content_index: 0,
      delta,
      ...(o.kind === 'message' ? { logprobs: [] } : {}),
    });
  }

  /** Makes an item of `kind` the open one (closing another), with its opening events. */
  private openAs(kind: OpenItem['kind']): Json[] {
    if (this.open?.kind === kind) return [];
    const out = this.close();
    const open: OpenItem = {
      kind,
      index: this.output.length,
      id: itemId(kind === 'message' ? 'msg' : 'rs'),
      text: '',
    };
    this.open = open;
    const item =
      kind === 'message'
        ? { type: 'message', id: open.id, status: 'in_progress', role: 'assistant', content: [] }
        : { type: 'reasoning', id: open.id, summary: [], content: [] };
    this.output.push(item);
    const part =
      kind === 'message'
        ? { type: 'output_text', text: '', annotations: [] }
        : { type: 'reasoning_text', text: '' };
    out.push(
      this.event('response.output_item.added', { output_index: open.index, item: { ...item } }),
      this.event('response.content_part.added', {
        item_id: open.id,
        output_index: open.index,
        content_index: 0,
        part,
      }),
    );
    return out;
  }

  /** Closes the open item: its `.done` events, and the finished item in `output`. */
  private close(status: 'completed' | 'incomplete' = 'completed'): Json[] {
    const o = this.open;
    if (!o) return [];
    this.open = undefined;
    const where = { item_id: o.id, output_index: o.index, content_index: 0 };
    const part =
      o.kind === 'message'
        ? { type: 'output_text', text: o.text, annotations: [], logprobs: [] }
        : { type: 'reasoning_text', text: o.text };
    const item =
      o.kind === 'message'
        ? { type: 'message', id: o.id, status, role: 'assistant', content: [part] }
        : { type: 'reasoning', id: o.id, summary: [], content: [part] };
    this.output[o.index] = item;
    const textDone =
      o.kind === 'message'
        ? this.event('response.output_text.done', { ...where, text: o.text, logprobs: [] })
        : this.event('response.reasoning_text.done', { ...where, text: o.text });
    return [
      textDone,
      this.event('response.content_part.done', { ...where, part }),
      this.event('response.output_item.done', { output_index: o.index, item }),
    ];
  }
}

/** The text of a message or reasoning item (its first content part). */
function textOf(item: Json): string {
  const [part] = (item.content as { text?: string }[] | undefined) ?? [];
  return part?.text ?? '';
}

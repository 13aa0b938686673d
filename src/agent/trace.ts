/**
 * What the agent does, as OpenTelemetry spans named and described by the GenAI
 * semantic conventions: `invoke_agent {agent}` around each prompt of a session,
 * `chat {model}` around each model call, `execute_tool {tool}` around each tool call
 * (a sub-agent's `invoke_agent` nests under the `execute_tool task` that started it),
 * and `invoke_workflow {workflow}` around a workflow run (`traceWorkflow`).
 *
 * Spans go to the tracer in the agent's services (any tracer of the OpenTelemetry API:
 * the runtime's local one, the SDK's, an embedding application's); without one they
 * record nothing. Parents are passed explicitly, never taken from an ambient context (a
 * generator resumes in its consumer's async context, which would be the wrong one), so
 * the API package itself need not load: only its types are used (trace-context.ts).
 */
import type { Attributes, Context, Span, SpanKind, Tracer } from '@opentelemetry/api';
import type { LlmError } from '../llm/errors.js';
import type { FinishReason, ModelInfo } from '../llm/types.js';
import type { ToolRunStatus } from '../tools/run.js';
import type { ModelUsage } from './record.js';
import {
  contextKey,
  NOOP_TRACER,
  ROOT_CONTEXT,
  SPAN_KIND_CLIENT,
  SPAN_KIND_INTERNAL,
  STATUS_ERROR,
  withSpan,
} from './trace-context.js';

export type { Span, Tracer } from '@opentelemetry/api';
/** Where new spans attach: a span's context (`AgentTrace.context`, the argument of `traceWorkflow`'s function). */
export type TraceParent = Context;

/** The tea run a trace belongs to: the top-level session's id, or a workflow run's id. */
const RUN = contextKey('tea.run.id');
const INTERNAL = SPAN_KIND_INTERNAL as SpanKind;
const CLIENT = SPAN_KIND_CLIENT as SpanKind;

/** The run id `parent` carries (set by the outermost `invoke_agent` or `invoke_workflow`). */
export function runIdOf(parent: Context): string | undefined {
  const id = parent.getValue(RUN);
  return typeof id === 'string' ? id : undefined;
}

/** `tracer`, or one that records nothing. */
export function tracerOr(tracer: Tracer | undefined): Tracer {
  return tracer ?? NOOP_TRACER;
}

interface Endpoint {
  provider: string;
  address?: string;
  port?: number;
}

const endpoints = new WeakMap<ModelInfo, Endpoint>();

/** OpenAI-compatible servers the conventions name, by a part of their host name. */
const HOSTS: readonly (readonly [string, string])[] = [
  ['deepseek', 'deepseek'],
  ['groq', 'groq'],
  ['mistral', 'mistral_ai'],
  ['x.ai', 'x_ai'],
  ['moonshot', 'moonshot_ai'],
  ['perplexity', 'perplexity'],
  ['cohere', 'cohere'],
  ['openai.azure.com', 'azure.ai.openai'],
];

/** `gen_ai.provider.name`, `server.address` and `server.port` of a model (computed once per model). */
function endpointOf(model: ModelInfo): Endpoint {
  let e = endpoints.get(model);
  if (e) return e;
  let url: URL | undefined;
  try {
    url = new URL(model.baseUrl);
  } catch {
    url = undefined;
  }
  const host = url?.hostname ?? '';
  const named = model.provider === 'openai' ? HOSTS.find(([part]) => host.includes(part))?.[1] : undefined;
  e = { provider: named ?? model.provider };
  if (host && url) {
    e.address = host;
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : 0));
    if (port > 0) e.port = port;
  }
  endpoints.set(model, e);
  return e;
}

function modelAttributes(model: ModelInfo): Attributes {
  const e = endpointOf(model);
  return {
    'gen_ai.provider.name': e.provider,
    'gen_ai.request.model': model.model,
    ...(e.address ? { 'server.address': e.address } : {}),
    ...(e.port ? { 'server.port': e.port } : {}),
  };
}

/** The conventions' finish reasons (OpenAI's words) for tea's. */
const FINISH: Record<FinishReason, string> = {
  stop: 'stop',
  'tool-calls': 'tool_calls',
  length: 'length',
  'content-filter': 'content_filter',
  error: 'error',
  other: 'other',
};

/** A span that ends once: later calls of `end` do nothing (a `finally` may repeat one). */
abstract class OneSpan {
  protected ended = false;
  constructor(protected readonly span: Span) {}

  protected finish(): boolean {
    if (this.ended) return false;
    this.ended = true;
    return this.span.isRecording();
  }

  protected fail(type: string, message: string): void {
    this.span.setAttribute('error.type', type);
    this.span.setStatus({ code: STATUS_ERROR, message: message.slice(0, 500) });
  }
}

export interface AgentTraceInfo {
  sessionId: string;
  /** The role of a sub-agent; `tea` for a top-level session. */
  agentName: string;
  model: ModelInfo;
}

/** The `invoke_agent` span of one prompt of a session; its model calls and tool calls nest under it. */
export class AgentTrace extends OneSpan {
  /** The context of this span: the parent of its `chat` and `execute_tool` spans. */
  readonly context: Context;
  private errorType: string | undefined;

  constructor(
    private readonly tracer: Tracer,
    parent: Context | undefined,
    private readonly info: AgentTraceInfo,
  ) {
    let ctx = parent ?? ROOT_CONTEXT;
    if (ctx.getValue(RUN) === undefined) ctx = ctx.setValue(RUN, info.sessionId);
    const span = tracer.startSpan(
      `invoke_agent ${info.agentName}`,
      {
        kind: INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': info.agentName,
          'gen_ai.agent.id': info.sessionId,
          'gen_ai.conversation.id': info.sessionId,
          ...modelAttributes(info.model),
        },
      },
      ctx,
    );
    super(span);
    this.context = withSpan(ctx, span);
  }

  /** A `chat` span for one model call of this prompt. */
  chat(model: ModelInfo): ChatTrace {
    const span = this.tracer.startSpan(
      `chat ${model.model}`,
      {
        kind: CLIENT,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.conversation.id': this.info.sessionId,
          'gen_ai.request.stream': true,
          ...modelAttributes(model),
        },
      },
      this.context,
    );
    return new ChatTrace(span, (type) => {
      this.errorType = type;
    });
  }

  /** An `execute_tool` span for one tool call; its `context` is where a sub-agent's spans attach. */
  tool(call: { id: string; name: string }): ToolTrace {
    const span = this.tracer.startSpan(
      `execute_tool ${call.name}`,
      {
        kind: INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': call.name,
          'gen_ai.tool.call.id': call.id,
          'gen_ai.tool.type': 'function',
        },
      },
      this.context,
    );
    return new ToolTrace(span, withSpan(this.context, span));
  }

  /** Ends the span with the prompt's outcome: its usage (sub-agents' included) and why it stopped. */
  end(done?: {
    reason: string;
    message?: string | undefined;
    usage: { inputTokens: number; outputTokens: number };
    costUsd: number;
  }): void {
    if (!this.finish()) return;
    if (done) {
      this.span.setAttributes({
        'gen_ai.usage.input_tokens': done.usage.inputTokens,
        'gen_ai.usage.output_tokens': done.usage.outputTokens,
        'tea.usage.cost_usd': done.costUsd,
        'tea.stop_reason': done.reason,
      });
      if (done.reason === 'error') this.fail(this.errorType ?? '_OTHER', done.message ?? 'the prompt failed');
    } else {
      this.span.setAttribute('tea.stop_reason', 'stopped');
    }
    this.span.end();
  }
}

/** The `chat` span of one model call. */
export class ChatTrace extends OneSpan {
  constructor(
    span: Span,
    private readonly onError: (type: string) => void,
  ) {
    super(span);
  }

  /** A retry or a fallback to another model within this call. */
  event(name: 'retry' | 'fallback', attributes: Attributes): void {
    this.span.addEvent(name, attributes);
  }

  end(outcome: {
    usage: readonly ModelUsage[];
    finish?: FinishReason;
    error?: LlmError;
    cancelled: boolean;
  }): void {
    if (outcome.error) this.onError(errorType(outcome.error));
    if (!this.finish()) return;
    const { usage, finish, error } = outcome;
    let input = 0;
    let output = 0;
    let cached = 0;
    let reasoning = 0;
    let cost = 0;
    for (const u of usage) {
      input += u.usage.inputTokens;
      output += u.usage.outputTokens;
      cached += u.usage.cachedInputTokens ?? 0;
      reasoning += u.usage.reasoningTokens ?? 0;
      cost += u.costUsd;
    }
    const span = this.span;
    const last = usage.at(-1);
    if (last) span.setAttribute('gen_ai.response.model', last.model.model);
    if (finish) span.setAttribute('gen_ai.response.finish_reasons', [FINISH[finish]]);
    span.setAttribute('gen_ai.usage.input_tokens', input);
    span.setAttribute('gen_ai.usage.output_tokens', output);
    if (cached > 0) span.setAttribute('gen_ai.usage.cache_read.input_tokens', cached);
    if (reasoning > 0) span.setAttribute('gen_ai.usage.reasoning.output_tokens', reasoning);
    if (cost > 0) span.setAttribute('tea.usage.cost_usd', cost);
    if (outcome.cancelled) span.setAttribute('tea.cancelled', true);
    if (error) this.fail(errorType(error), error.message);
    this.span.end();
  }
}

/** `error.type` of a failed model call: the HTTP status, else the kind of failure. */
function errorType(e: LlmError): string {
  return e.status !== undefined ? String(e.status) : e.kind;
}

/** The `execute_tool` span of one tool call. */
export class ToolTrace extends OneSpan {
  constructor(
    span: Span,
    /** This span's context: a sub-agent started by the call attaches here. */
    readonly context: Context,
  ) {
    super(span);
  }

  end(status: ToolRunStatus, output: string): void {
    if (!this.finish()) return;
    this.span.setAttribute('tea.tool.status', status);
    if (status === 'error') this.fail('tool_error', firstLine(output));
    else if (status === 'denied') this.fail('denied', firstLine(output));
    this.span.end();
  }
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

export interface WorkflowTraceOptions {
  /** The workflow's name (low cardinality: its file's name, not the run). */
  name: string;
  /** The run's id: spans kept locally are filed under it (`tea trace show <run>`). */
  runId: string;
  /** The tracer (an agent's `services.tracer`); default: the global API's. */
  tracer?: Tracer;
  /** A parent (a sub-workflow under its parent's node); default: none (a new trace). */
  parent?: TraceParent;
  attributes?: Attributes;
}

/**
 * Runs `fn` inside an `invoke_workflow {name}` span. `fn` gets the span's context: pass
 * it as `traceParent` to each `Session.prompt` of the run (and as `parent` to a
 * sub-workflow) so their spans nest under the workflow's. A throw marks the span failed
 * (`error.type` the error's name) and is rethrown; `span` takes more attributes.
 */
export async function traceWorkflow<T>(
  opts: WorkflowTraceOptions,
  fn: (parent: TraceParent, span: Span) => Promise<T>,
): Promise<T> {
  let ctx = opts.parent ?? ROOT_CONTEXT;
  if (ctx.getValue(RUN) === undefined) ctx = ctx.setValue(RUN, opts.runId);
  const span = tracerOr(opts.tracer).startSpan(
    `invoke_workflow ${opts.name}`,
    {
      kind: INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'invoke_workflow',
        'gen_ai.workflow.name': opts.name,
        'tea.workflow.run_id': opts.runId,
        ...opts.attributes,
      },
    },
    ctx,
  );
  const inner = withSpan(ctx, span);
  try {
    return await fn(inner, span);
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    span.setAttribute('error.type', err.name || '_OTHER');
    span.setStatus({ code: STATUS_ERROR, message: err.message.slice(0, 500) });
    throw e;
  } finally {
    span.end();
  }
}

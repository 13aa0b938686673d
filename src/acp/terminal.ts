/**
 * `ClientShell` over ACP: when the client offers `terminal`, bash runs its command in
 * the editor (`terminal/create`), the tool call embeds the terminal so the user watches
 * it live, and Tea waits for the exit (`terminal/wait_for_exit`), reads the output
 * (`terminal/output`) and releases it (`terminal/release`). A cancel or the bash
 * deadline kills it first (`terminal/kill`). The permission check and the sandbox
 * launch happen before, in the tool (tools/builtin/exec-client.ts).
 */
import type {
  AgentContext,
  ClientCapabilities,
  CreateTerminalRequest,
  TerminalOutputRequest,
} from '@agentclientprotocol/sdk';
import { ToolError } from '../runtime/client-files.js';
import type { ClientCommand, ClientCommandResult, ClientShell } from '../tools/types.js';
import { childCallId } from './subagents.js';

/** How long a killed command's client may take to report its exit, and each step after. */
export const KILL_WAIT_MS = 5000;

/** Resolves with undefined after `ms`. */
function after(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class AcpTerminals implements ClientShell {
  /** The terminal each tool call ran in, by its ACP tool call id (kept: the final update embeds it). */
  private readonly byCall = new Map<string, string>();
  /**
   * Shows a terminal in its tool call (a `tool_call_update`). The live session sets it,
   * so the update goes out in order with the call's own updates.
   */
  show: (toolCallId: string, terminalId: string) => void = () => undefined;

  constructor(
    private readonly client: AgentContext,
    /** The ACP session's id (known only once the session exists, after its shell was made). */
    private readonly sessionId: () => string,
  ) {}

  /** The terminal a tool call ran in, if it did. */
  terminalOf(toolCallId: string): string | undefined {
    return this.byCall.get(toolCallId);
  }

  /** A call's ACP id: a sub-agent's calls are made unique with its session (as subagents.ts names them). */
  private toolCallId(req: ClientCommand): string {
    const own = this.sessionId();
    return req.sessionId === own ? req.callId : childCallId({ sessionId: req.sessionId }, req.callId);
  }

  async run(req: ClientCommand): Promise<ClientCommandResult> {
    const sessionId = this.sessionId();
    let terminalId: string;
    try {
      // Not cancelled mid-request: a terminal the client made must be known to be killed and released.
      const params: CreateTerminalRequest = {
        sessionId,
        command: req.command,
        args: [...req.args],
        cwd: req.cwd,
        env: Object.entries(req.env).map(([name, value]) => ({ name, value })),
        outputByteLimit: req.outputByteLimit,
      };
      const created = await this.client.request('terminal/create', params);
      terminalId = created.terminalId;
    } catch (error) {
      throw new ToolError(
        `the editor could not start the command in a terminal: ${reason(error)}`,
        'try again; if it keeps failing, the editor cannot run commands now',
      );
    }
    const toolCallId = this.toolCallId(req);
    this.byCall.set(toolCallId, terminalId);
    this.show(toolCallId, terminalId);
    const ids: TerminalOutputRequest = { sessionId, terminalId };
    // Once killed, the client gets KILL_WAIT_MS to report the exit (and each later step as
    // long): a client that never does must not hold the turn.
    let killed = false;
    let giveUp: () => void = () => undefined;
    const gaveUp = new Promise<undefined>((resolve) => {
      giveUp = () => resolve(undefined);
    });
    let timer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      if (killed) return;
      killed = true;
      timer = setTimeout(giveUp, KILL_WAIT_MS);
      this.client.request('terminal/kill', ids).catch(() => undefined);
    };
    const bounded = <T>(p: Promise<T>): Promise<T | undefined> => {
      p.catch(() => undefined); // a late failure after giving up is nobody's
      return killed ? Promise.race([p, after(KILL_WAIT_MS)]) : Promise.race([p, gaveUp]);
    };
    req.signal.addEventListener('abort', onAbort, { once: true });
    if (req.signal.aborted) onAbort();
    const unwatch = req.watch ? watchOutput(this.client, ids, req.watch) : () => undefined;
    try {
      const exit = (await bounded(this.client.request('terminal/wait_for_exit', ids))) ?? {};
      const out = (await bounded(this.client.request('terminal/output', ids))) ?? {
        output: '',
        truncated: false,
      };
      const status = out.exitStatus ?? exit;
      return {
        output: out.output,
        truncated: out.truncated,
        exitCode: status.exitCode ?? null,
        signal: status.signal ?? null,
      };
    } catch (error) {
      throw new ToolError(
        `the editor's terminal failed: ${reason(error)}`,
        'the command may or may not have run; check its effects before running it again',
      );
    } finally {
      unwatch();
      clearTimeout(timer);
      req.signal.removeEventListener('abort', onAbort);
      await bounded(this.client.request('terminal/release', ids)).catch(() => undefined);
    }
  }
}

/**
 * Looks at a running terminal's output (`terminal/output`) every `everyMs` from `afterMs`
 * on and calls `onOutput` when it changed since the previous look. Returns the stop.
 */
function watchOutput(
  client: AgentContext,
  ids: TerminalOutputRequest,
  w: NonNullable<ClientCommand['watch']>,
): () => void {
  let last: string | undefined;
  let looking = false;
  let every: NodeJS.Timeout | undefined;
  const look = (): void => {
    if (looking) return;
    looking = true;
    client
      .request('terminal/output', ids)
      .then((o) => {
        // Length and tail: a client past its byte limit keeps the length, not the tail.
        const print = `${o.output.length}:${o.output.slice(-64)}`;
        if (last !== undefined && print !== last) w.onOutput();
        last = print;
      })
      .catch(() => undefined)
      .finally(() => {
        looking = false;
      });
  };
  const start = setTimeout(() => {
    look();
    every = setInterval(look, w.everyMs);
  }, w.afterMs);
  return () => {
    clearTimeout(start);
    clearInterval(every);
  };
}

/** A ClientShell for a session when the client offers terminals, else undefined (bash runs here). */
export function clientTerminalsFor(
  client: AgentContext,
  sessionId: () => string,
  caps: ClientCapabilities | undefined,
): AcpTerminals | undefined {
  return caps?.terminal === true ? new AcpTerminals(client, sessionId) : undefined;
}

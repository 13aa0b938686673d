/**
 * The default runner of `agent` nodes: the prompt in a new session of the runtime's
 * agent (the role only prefixes the session's title). The delegation runner
 * (roles with their own tools, models and budgets) replaces it behind the same port.
 */
import type { Agent, Session } from '../../agent/index.js';
import type { AgentNodeResult, AgentNodeRunner } from './types.js';

function structuredAsk(prompt: string, schema: Record<string, unknown>): string {
  return (
    `${prompt}\n\nAnswer with one JSON value only (no prose, no code fence) that fits this JSON schema:\n` +
    JSON.stringify(schema)
  );
}

export interface SessionAgentRunner extends AgentNodeRunner {
  /** Waits up to `graceMs` for the sessions' background jobs (summaries, memory), then stops them. */
  settle(graceMs: number): Promise<void>;
}

/** Runs each agent node's prompt in a new session of `agentFor()`'s agent. */
export function sessionAgentRunner(agentFor: (profile?: string) => Agent): SessionAgentRunner {
  const sessions = new Set<Session>();
  return {
    async run(req): Promise<AgentNodeResult> {
      const agent = agentFor();
      const title = `[${req.role}] ${req.prompt.replace(/\s+/g, ' ').trim().slice(0, 60)}`;
      const session = agent.newSession({ title });
      sessions.add(session);
      const prompt = req.outputSchema ? structuredAsk(req.prompt, req.outputSchema) : req.prompt;
      let result: AgentNodeResult = {
        status: 'error',
        text: '',
        sessionId: session.id,
        usage: { inputTokens: 0, outputTokens: 0 },
        costUsd: 0,
      };
      for await (const event of session.prompt(prompt, { signal: req.signal })) {
        req.onEvent?.(event);
        if (event.type !== 'done') continue;
        const status =
          event.reason === 'completed'
            ? 'completed'
            : event.reason === 'cancelled'
              ? 'cancelled'
              : event.reason === 'max_iterations'
                ? 'budget'
                : 'error';
        result = {
          status,
          text: status === 'completed' ? event.text : [event.text, event.message].filter(Boolean).join('\n'),
          sessionId: session.id,
          usage: { inputTokens: event.usage.inputTokens, outputTokens: event.usage.outputTokens },
          costUsd: event.costUsd,
        };
      }
      return result;
    },
    async settle(graceMs: number): Promise<void> {
      await Promise.all([...sessions].map((s) => s.settle(graceMs)));
      sessions.clear();
    },
  };
}

/**
 * The context engine over a 500-turn scripted session: prompt tokens per request
 * (vs. sending the whole transcript), needle hit rate, and builder time per call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encode } from 'gpt-tokenizer';
import { SessionContext } from '../src/agent/context.js';
import { Agent, toModelMessages } from '../src/agent/index.js';
import { TokenCalibrator } from '../src/context/tokens.js';
import { OpenAICompatibleProvider } from '../src/llm/openai.js';
import type { ModelInfo } from '../src/llm/types.js';
import { Store } from '../src/store/index.js';
import { createToolRegistry } from '../src/tools/builtin/index.js';
import { bigOutputTool, needles, turnAt } from '../test/support/long-session.js';
import { startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';

const TURNS = 500;

function stats(xs: number[]): { min: number; median: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]!, max: s.at(-1)! };
}

export async function benchContext(): Promise<void> {
  const server = await startModelServer();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-ctx-'));
  const store = Store.open(path.join(dir, 'tea.db'));
  try {
    const tools = await createToolRegistry();
    tools.register(bigOutputTool());
    const info: ModelInfo = {
      profile: 'bench',
      provider: 'openai',
      model: 'scripted',
      baseUrl: server.openaiBaseUrl,
      contextWindow: 32_000,
      maxOutputTokens: 4096,
    };
    const agent = new Agent({
      provider: new OpenAICompatibleProvider(info, { apiKey: 'x' }),
      tools,
      store,
      cwd: dir,
      settings: { permissionMode: 'yolo' },
    });
    const session = agent.newSession();
    const planted = needles(TURNS);
    const sent: number[] = [];
    const naive: number[] = [];
    let transcriptTokens = 0;
    for (let i = 0; i < TURNS; i++) {
      const turn = turnAt(i, planted);
      const before = server.requests.length;
      server.script(...turn.replies);
      for await (const _ of session.prompt(turn.input)) {
        // drain
      }
      const system = encode(JSON.stringify((server.requests[before]!.body.messages as unknown[])[0])).length;
      for (const r of server.requests.slice(before)) {
        const tokens = encode(JSON.stringify(r.body.messages)).length;
        sent.push(tokens);
        naive.push(system + transcriptTokens + (tokens - system));
      }
      transcriptTokens = encode(JSON.stringify(session.history)).length;
    }
    let hits = 0;
    let found = 0;
    for (const n of planted) {
      const before = server.requests.length;
      server.script(reply().toolCall('history_search', { query: n.key }), reply().text(`It is ${n.value}.`));
      for await (const _ of session.prompt(`What is the port of ${n.key}?`)) {
        // drain
      }
      if (JSON.stringify(server.requests[before]!.body.messages).includes(n.value)) hits++;
      const tools = (
        server.requests[before + 1]!.body.messages as Array<{ role: string; content: unknown }>
      ).filter((m) => m.role === 'tool');
      if (JSON.stringify(tools.at(-1)?.content ?? '').includes(n.value)) found++;
    }
    const s = stats(sent);
    const b = stats(naive);
    console.log(
      `context, ${TURNS}-turn session (window 32k)  prompt tokens/request min ${s.min} median ${s.median} max ${s.max}; full history would be median ${b.median}, max ${b.max}`,
    );
    console.log(
      `  needles: in the request when asked ${hits}/${planted.length}; found by history_search ${found}/${planted.length} (no cheap model here, so no L3 summary)`,
    );

    const history = toModelMessages(store.messages.list(session.id));
    const context = new SessionContext({
      store,
      sessionId: session.id,
      system: 'You are Tea Agent.',
      instructions: [],
      calibrator: new TokenCalibrator(),
    });
    context.build(history, info);
    const t0 = performance.now();
    const runs = 200;
    for (let i = 0; i < runs; i++) context.build(history, info);
    console.log(
      `  builder time per call           ${((performance.now() - t0) / runs).toFixed(3)} ms at ${TURNS} turns (${history.length} messages)  (target ≤ 2 ms)`,
    );
  } finally {
    store.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

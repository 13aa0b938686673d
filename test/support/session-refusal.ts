/**
 * What a session (`tea -p`: nobody to answer) says of a shell line, through the agent's
 * own permission path, split into what every face must say the same way: the verdict
 * (`deny`: not allowed; `ask`: needs approval) and its reason.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authorize } from '../../src/agent/approval.js';
import { Interactions } from '../../src/agent/interactions.js';
import { Store } from '../../src/store/index.js';
import { callLabel } from '../../src/tools/authorize.js';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import { type PermissionMode, PermissionPolicy, type PermissionRule } from '../../src/tools/permissions.js';

export interface Refusal {
  action: 'deny' | 'ask';
  reason: string;
  /** `bash (the line)`, as every face names the call. */
  label: string;
}

/** The session's verdicts on bash lines in `workspace` (open with `sessionJudge`, then `close`). */
export function sessionJudge(workspace: string, mode: PermissionMode, rules: readonly PermissionRule[]) {
  const loaded = createToolRegistry().then(async (tools) => ({ tools, bash: (await tools.load('bash'))! }));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-session-judge-'));
  const store = Store.open(path.join(dir, 'tea.db'));
  return {
    /** The session's refusal of `command`, or undefined when it runs without asking. */
    async refusal(command: string): Promise<Refusal | undefined> {
      const { tools, bash } = await loaded;
      const result = await authorize(
        bash,
        { command },
        {
          policy: new PermissionPolicy(mode, rules),
          host: {
            store,
            sessionId: 's1',
            tools,
            interactions: new Interactions('deny'),
            loaded: new Set(),
          },
          callId: 'c1',
          args: { command },
          signal: new AbortController().signal,
          emit: () => undefined,
          where: { cwd: workspace },
        },
      );
      if (result.allowed) return undefined;
      const label = callLabel('bash', command);
      const first = `[DENIED] ${label} `;
      if (!result.output.startsWith(first)) throw new Error(`unexpected refusal: ${result.output}`);
      const rest = result.output.slice(first.length);
      const denied = 'is not allowed here (';
      if (rest.startsWith(denied))
        return { action: 'deny', label, reason: rest.slice(denied.length, rest.lastIndexOf(').\nHint: ')) };
      const asked = "needs the user's approval (";
      if (rest.startsWith(asked)) {
        const end = rest.lastIndexOf('), and nobody can approve in this run.');
        return { action: 'ask', label, reason: rest.slice(asked.length, end) };
      }
      throw new Error(`unexpected refusal: ${result.output}`);
    },
    close(): void {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

import readline from 'node:readline';
import { EXIT } from './exit.js';
import type { PromptFlags } from './flags.js';
import { textRenderer } from './render.js';
import { createRuntime, pickSession } from './runtime.js';
import { VERSION } from './version.js';

/**
 * A plain line-based conversation for terminals: each line is a prompt; Ctrl-C
 * cancels a running turn, or quits at the prompt; `/exit` quits.
 */
export async function runInteractive(flags: PromptFlags): Promise<number> {
  const rt = await createRuntime(flags);
  const session = pickSession(rt, flags);
  const render = textRenderer(process.stdout, process.stderr, true);
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, prompt: 'tea> ' });
  let abort: AbortController | undefined;
  rl.on('SIGINT', () => {
    if (abort) abort.abort();
    else rl.close();
  });
  process.stdout.write(
    `Tea Agent ${VERSION} · ${rt.provider.info.model} · session ${session.id.slice(0, 8)}\n` +
      'Type a request. Ctrl-C cancels a running turn; /exit or Ctrl-C at the prompt quits.\n',
  );
  try {
    rl.prompt();
    for await (const line of rl) {
      const text = line.trim();
      if (text === '/exit' || text === '/quit') break;
      if (text) {
        abort = new AbortController();
        for await (const e of session.prompt(text, { signal: abort.signal })) {
          render.event(e);
          if (e.type === 'approval_request') {
            const what = e.subject ? `${e.tool}: ${e.subject}` : e.tool;
            // A shell line names the piece that needs the approval.
            const why = e.part === undefined ? '' : ` (${e.reason})`;
            const reply = (
              await ask(rl, `Allow ${what}?${why} [y]es once / [a]lways this session / [n]o (reason): `)
            ).trim();
            const [choice = '', ...reason] = reply.split(/\s+/);
            const decision = /^a/i.test(choice) ? 'always' : /^y/i.test(choice) ? 'once' : 'reject';
            session.approve(
              e.requestId,
              decision,
              decision === 'reject' ? reason.join(' ') || undefined : undefined,
            );
          } else if (e.type === 'question') {
            const options = e.options ? ` (${e.options.join(' / ')})` : '';
            session.answer(e.requestId, await ask(rl, `? ${e.question}${options}\n> `));
          }
        }
        abort = undefined;
      }
      rl.prompt();
    }
    return EXIT.OK;
  } finally {
    rl.close();
    // Let a title or summary still running on the cheap model land before the store closes.
    await session.settled();
    rt.close();
  }
}

function ask(rl: readline.Interface, prompt: string): Promise<string> {
  return new Promise((resolve) => rl.question(prompt, resolve));
}

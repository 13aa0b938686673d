/**
 * What the MCP conformance scenarios call by name, provided the way a Tea user would
 * provide it: user tools the agent writes (`tool_create`, saved in TEA_HOME/tools) and
 * user commands (`.tea/commands/*.md` in the workspace). Nothing here is in Tea's
 * product code.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import { runTool } from '../../src/tools/run.js';
import { registerUserTools } from '../../src/tools/user/register.js';

/** A 1×1 red PNG. */
export const RED_PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

const tool = (name: string, description: string, body: string) =>
  [
    "import * as z from 'zod';",
    'type Ctx = {',
    '  progress(p: { progress: number; total?: number; message?: string }): void;',
    '  log(level: string, message: string): void;',
    '};',
    'const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));',
    'export default {',
    `  name: ${JSON.stringify(name)},`,
    `  description: ${JSON.stringify(description)},`,
    "  approval: 'none',",
    '  parameters: z.object({}),',
    `  async run(_args: unknown, ctx: Ctx) { ${body} },`,
    '};',
    '',
  ].join('\n');

export const FIXTURE_TOOLS: Record<string, string> = {
  test_simple_text: tool(
    'test_simple_text',
    'Answers with a fixed sentence.',
    "return 'This is a simple text response for testing.';",
  ),
  test_image_content: tool(
    'test_image_content',
    'Answers with a one-pixel red image.',
    `return { output: 'A red pixel.', images: [{ data: ${JSON.stringify(RED_PIXEL)}, mediaType: 'image/png' }] };`,
  ),
  test_error_handling: tool(
    'test_error_handling',
    'Always fails.',
    "return { output: 'This tool intentionally returns an error for testing', isError: true };",
  ),
  test_tool_with_progress: tool(
    'test_tool_with_progress',
    'Reports progress 0, 50 and 100 of 100.',
    'ctx.progress({ progress: 0, total: 100 }); await wait(50); ctx.progress({ progress: 50, total: 100 }); await wait(50); ctx.progress({ progress: 100, total: 100 }); return "done";',
  ),
  test_tool_with_logging: tool(
    'test_tool_with_logging',
    'Logs three lines while it runs.',
    "ctx.log('info', 'Tool execution started'); await wait(50); ctx.log('info', 'Tool processing data'); await wait(50); ctx.log('info', 'Tool execution completed'); return 'logged';",
  ),
};

export const FIXTURE_COMMANDS: Record<string, string> = {
  'test_simple_prompt.md': '---\ndescription: A simple prompt\n---\nThis is a simple prompt for testing.\n',
  'test_prompt_with_arguments.md':
    "---\ndescription: A prompt with two arguments\nargument-hint: <arg1> <arg2>\n---\nPrompt with arguments: arg1='$1', arg2='$2'\n",
};

/** Saves the fixture tools in `home` (as `tool_create` does) and the commands in `work/.tea/commands`. */
export async function installFixtures(home: string, work: string): Promise<void> {
  const registry = await createToolRegistry();
  registerUserTools(registry, { home });
  for (const [name, code] of Object.entries(FIXTURE_TOOLS)) {
    const ctx = { cwd: work, sessionId: 'setup', callId: name, signal: new AbortController().signal };
    const r = await runTool(
      registry,
      { type: 'tool-call', id: name, name: 'tool_create', args: { name, code } },
      ctx,
    );
    if (r.isError) throw new Error(`tool_create ${name}: ${r.output}`);
  }
  const dir = path.join(work, '.tea', 'commands');
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(FIXTURE_COMMANDS)) writeFileSync(path.join(dir, file), text);
}

/**
 * What the MCP conformance scenarios call by name, provided the way a Tea user would
 * provide it: user tools the agent writes (`tool_create`, saved in TEA_HOME/tools) and
 * user commands (`.tea/commands/*.md` in the workspace, an image beside them) and user
 * resources (`TEA_HOME/resources/*.js`). Nothing here is in Tea's product code.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import { runTool } from '../../src/tools/run.js';
import { registerUserTools } from '../../src/tools/user/register.js';

/** A 1×1 red PNG. */
export const RED_PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A silent WAV of 8 samples (8 kHz, 16-bit mono). */
export const SILENT_WAV = 'UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA';

const tool = (name: string, description: string, body: string, parameters = 'z.object({})') =>
  [
    "import * as z from 'zod';",
    'type Ctx = {',
    '  progress(p: { progress: number; total?: number; message?: string }): void;',
    '  log(level: string, message: string): void;',
    '  elicit(r: { message: string; schema: object }): Promise<{ action: string; content?: object }>;',
    '  sample(r: { prompt: string; maxTokens: number }): Promise<{ text: string; model: string }>;',
    '};',
    'const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));',
    'export default {',
    `  name: ${JSON.stringify(name)},`,
    `  description: ${JSON.stringify(description)},`,
    "  approval: 'none',",
    `  parameters: ${parameters},`,
    `  async run(args: any, ctx: Ctx) { ${body} },`,
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
  test_audio_content: tool(
    'test_audio_content',
    'Answers with a short silent clip.',
    `return { output: '', audio: [{ data: ${JSON.stringify(SILENT_WAV)}, mediaType: 'audio/wav' }] };`,
  ),
  test_embedded_resource: tool(
    'test_embedded_resource',
    'Answers with an embedded text resource.',
    "return { output: '', resources: [{ uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' }] };",
  ),
  test_multiple_content_types: tool(
    'test_multiple_content_types',
    'Answers with text, an image and an embedded resource.',
    `return { output: 'Multiple content types test:', images: [{ data: ${JSON.stringify(RED_PIXEL)}, mediaType: 'image/png' }], resources: [{ uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) }] };`,
  ),
  json_schema_2020_12_tool: tool(
    'json_schema_2020_12_tool',
    'Takes a name and an address (an object defined once, referenced by $ref).',
    "return 'Hello ' + args.name;",
    "z.object({ name: z.string(), address: z.object({ street: z.string(), city: z.string() }).meta({ id: 'address' }).optional() }).strict()",
  ),
  test_reconnection: tool(
    'test_reconnection',
    'Waits a moment, then answers.',
    "await wait(100); return 'Reconnection test completed successfully';",
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
  test_sampling: tool(
    'test_sampling',
    'Asks the caller’s model.',
    "const a = await ctx.sample({ prompt: args.prompt, maxTokens: 100 }); return 'LLM response: ' + a.text;",
    'z.object({ prompt: z.string() })',
  ),
  test_elicitation: tool(
    'test_elicitation',
    'Asks the user for a name and an email address.',
    "const a = await ctx.elicit({ message: args.message, schema: { type: 'object', properties: { username: { type: 'string', description: \"User's response\" }, email: { type: 'string', description: \"User's email address\" } }, required: ['username', 'email'] } }); return 'User response: ' + JSON.stringify(a);",
    'z.object({ message: z.string() })',
  ),
  test_elicitation_sep1034_defaults: tool(
    'test_elicitation_sep1034_defaults',
    'Asks the user with defaults for every field.',
    "const a = await ctx.elicit({ message: 'Defaults', schema: { type: 'object', properties: { name: { type: 'string', default: 'John Doe' }, age: { type: 'integer', default: 30 }, score: { type: 'number', default: 95.5 }, status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' }, verified: { type: 'boolean', default: true } } } }); return 'Elicitation completed: action=' + a.action + ', content=' + JSON.stringify(a.content);",
  ),
  test_elicitation_sep1330_enums: tool(
    'test_elicitation_sep1330_enums',
    'Asks the user to choose among options.',
    "const a = await ctx.elicit({ message: 'Enums', schema: { type: 'object', properties: { untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] }, titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }] }, legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] }, untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } }, titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }] } } } } }); return 'Elicitation completed: action=' + a.action + ', content=' + JSON.stringify(a.content);",
  ),
};

/** User resources (TEA_HOME/resources/conformance.js): what the resources scenarios read. */
export const FIXTURE_RESOURCES = [
  'export default {',
  '  resources: [',
  "    { uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain', read: () => 'This is the content of the static text resource.' },",
  `    { uri: 'test://static-binary', name: 'static-binary', mimeType: 'image/png', read: () => ({ blob: ${JSON.stringify(RED_PIXEL)} }) },`,
  "    { uri: 'test://watched-resource', name: 'watched-resource', mimeType: 'text/plain', read: () => 'Watched.' },",
  "    { uri: 'test://example-resource', name: 'example-resource', mimeType: 'text/plain', read: () => 'Embedded resource content for testing.' },",
  '  ],',
  '  templates: [',
  "    { uriTemplate: 'test://template/{id}/data', name: 'template-data', mimeType: 'application/json',",
  "      read: (p) => JSON.stringify({ id: p.id, templateTest: true, data: 'Data for ID: ' + p.id }) },",
  '  ],',
  '};',
  '',
].join('\n');

export const FIXTURE_COMMANDS: Record<string, string> = {
  'test_simple_prompt.md': '---\ndescription: A simple prompt\n---\nThis is a simple prompt for testing.\n',
  'test_prompt_with_arguments.md':
    "---\ndescription: A prompt with two arguments\nargument-hint: <arg1> <arg2>\n---\nPrompt with arguments: arg1='$1', arg2='$2'\n",
  'test_prompt_with_image.md':
    '---\ndescription: A prompt with an image\n---\n@image red.png\nPlease analyze the image above.\n',
  'test_prompt_with_embedded_resource.md':
    '---\ndescription: A prompt embedding a resource\nargument-hint: <resourceUri>\n---\n@resource $1\nPlease process the embedded resource above.\n',
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
  writeFileSync(path.join(work, 'red.png'), Buffer.from(RED_PIXEL, 'base64'));
  mkdirSync(path.join(home, 'resources'), { recursive: true });
  writeFileSync(path.join(home, 'resources', 'conformance.js'), FIXTURE_RESOURCES);
}

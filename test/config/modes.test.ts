/**
 * Work modes in config: user modes and overrides resolved over the built-in six, and
 * every mistake refused with the file, the key and the fix (unknown tool or category,
 * unknown permission mode, empty prompt, a new mode without a prompt, bad names, an
 * unknown default). An untrusted project file may not loosen permissions through a
 * mode or pick the default mode. Real files in temp dirs; tools from the real registry.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type TeaConfig } from '../../src/config/index.js';
import { modeInfos, nextWorkMode, resolveWorkModes } from '../../src/runtime/modes.js';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import type { ToolRegistry } from '../../src/tools/registry.js';
import { type Dirs, makeDirs } from './helpers.js';

let dirs: Dirs;
let tools: ToolRegistry;
beforeAll(async () => {
  tools = await createToolRegistry();
});
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(() => dirs.cleanup());

const load = (): Promise<TeaConfig> =>
  loadConfig({ cwd: dirs.project, home: dirs.home, env: {}, detectOllama: false });
const resolve = async () => resolveWorkModes((await load()).workModes, tools);

describe('modes from config', () => {
  it('overrides a built-in key by key and adds the user’s modes after the six, with their default', async () => {
    dirs.writeUser(
      [
        'default_mode: triage',
        'modes:',
        '  review: { permission_mode: ask }',
        '  triage:',
        '    description: Sort the issues',
        '    prompt: "Sort the open issues by urgency; change nothing."',
        '    tools: [read, interaction, git_*]',
        '    permission_mode: read-only',
      ].join('\n'),
    );
    const set = await resolve();
    expect(set.names).toEqual(['design', 'develop', 'test', 'review', 'docs', 'devops', 'triage']);
    expect(set.defaultMode).toBe('triage');
    const review = set.get('review')!;
    expect(review.permissionMode).toBe('ask');
    expect(review.prompt).toMatch(/^Review, do not change/);
    expect(review.preload).toEqual(['git_status', 'git_diff', 'glob']);
    const infos = modeInfos(set, tools, 'auto-edit');
    const triage = infos.find((m) => m.name === 'triage')!;
    expect(triage).toMatchObject({
      description: 'Sort the issues',
      permissionMode: 'read-only',
      builtin: false,
    });
    // read tools, interaction tools and every git_* tool (the writing ones too: the glob says so).
    expect(triage.toolCount).toBe(
      tools.list().filter((t) => t.readOnly || t.category === 'interaction' || t.name.startsWith('git_'))
        .length,
    );
    expect(infos.find((m) => m.name === 'develop')).toMatchObject({ permissionMode: 'auto-edit' });
    // Shift+Tab's order: the table's, then the user's, around again.
    expect(nextWorkMode(infos, 'devops')).toBe('triage');
    expect(nextWorkMode(infos, 'triage')).toBe('design');
    expect(nextWorkMode(infos, undefined)).toBe('design');
  });

  it('a later file wins key by key (the project’s prompt over the user’s, the user’s tools kept)', async () => {
    dirs.writeUser('modes:\n  triage: { prompt: User prompt., tools: [read] }\n');
    dirs.writeProject('modes:\n  triage: { prompt: Project prompt. }\n');
    const triage = (await resolve()).get('triage')!;
    expect(triage).toMatchObject({ prompt: 'Project prompt.', tools: ['read'] });
  });

  it.each([
    [
      'an unknown tool, with the nearest name',
      'modes:\n  review: { tools: [read, gti_diff] }',
      /config\.yaml: modes\.review\.tools\[1\]: unknown tool or category "gti_diff"; did you mean "git_diff"\? Fix: use a tool name/,
    ],
    [
      'an unknown category',
      'modes:\n  review: { tools: [filez] }',
      /modes\.review\.tools\[0\]: unknown tool or category "filez"; did you mean "files"\?.*a category \(agents|modes\.review\.tools\[0\]: unknown tool or category "filez"; did you mean "files"\?/,
    ],
    [
      'an unknown permission mode',
      'modes:\n  review: { permission_mode: plan }',
      /config\.yaml: modes\.review\.permission_mode: expected read-only, ask, auto-edit or yolo, got "plan"\. Fix: e\.g\. `permission_mode: read-only`/,
    ],
    [
      'an empty prompt',
      'modes:\n  review: { prompt: "  " }',
      /config\.yaml: modes\.review\.prompt: the prompt is empty\. Fix: write one short paragraph/,
    ],
    [
      'a new mode without a prompt',
      'modes:\n  triage: { tools: [read] }',
      /config\.yaml: modes\.triage: a new mode needs a prompt\. Fix: add `prompt:`/,
    ],
    [
      'an empty tool list',
      'modes:\n  triage: { prompt: Sort., tools: [] }',
      /modes\.triage\.tools: the tool list is empty\. Fix:/,
    ],
    [
      'a permission mode’s name',
      'modes:\n  yolo: { prompt: Go. }',
      /modes\.yolo: "yolo" is a permission mode's name\. Fix: give the work mode another name/,
    ],
    [
      'a name with capitals',
      'modes:\n  Triage: { prompt: Go. }',
      /modes\.Triage: "Triage" is not a mode name\. Fix:/,
    ],
    [
      'an unknown key in a mode',
      'modes:\n  review: { promt: Look. }',
      /modes\.review\.promt: unknown key; did you mean "prompt"\?/,
    ],
    [
      'an unknown default',
      'default_mode: shipping',
      /config\.yaml: default_mode: there is no work mode "shipping"\. Fix: use one of design, develop, test, review, docs, devops/,
    ],
  ])('refuses %s, naming the file, key and fix', async (_what, yaml, message) => {
    dirs.writeUser(yaml);
    await expect(resolve()).rejects.toThrow(message);
  });
});

describe('an untrusted project file', () => {
  it('may add and tighten modes, but not loosen a permission mode or pick the default', async () => {
    dirs.writeUser('permissions: { mode: ask }\n');
    dirs.writeProject(
      [
        'default_mode: review',
        'modes:',
        '  review: { permission_mode: yolo, prompt: Project review. }',
        '  design: { permission_mode: read-only }',
        '  lint: { prompt: Lint it., permission_mode: read-only }',
      ].join('\n'),
    );
    const config = await load();
    expect(config.project?.restricted.map((r) => r.key)).toEqual([
      'modes.review.permission_mode',
      'default_mode',
    ]);
    expect(config.warnings.join('\n')).toMatch(/modes\.review\.permission_mode, default_mode/);
    const set = resolveWorkModes(config.workModes, tools);
    expect(set.defaultMode).toBe('develop');
    expect(set.get('review')).toMatchObject({ permissionMode: 'read-only', prompt: 'Project review.' });
    expect(set.get('lint')).toMatchObject({ permissionMode: 'read-only' });
    // Trusted, the same file applies whole.
    dirs.trustProject();
    const trusted = resolveWorkModes((await load()).workModes, tools);
    expect(trusted.defaultMode).toBe('review');
    expect(trusted.get('review')!.permissionMode).toBe('yolo');
  });
});

/**
 * Roles in delegation: a built-in role's tools and mode ceiling, a user role file with
 * structured output (validated, one repair round, then a clear failure), a role offered
 * as a tool of its own, and a role's model profile.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import {
  collect,
  isChild,
  isFirstCall,
  systemOf,
  task,
  toolNames,
  toolOutput,
  useDelegation,
} from './helpers.js';

const { model, runtimeIn } = useDelegation();

const AUDITOR = `---
name: auditor
description: Audits a file and returns findings as JSON.
tools: Read, Grep
as_tool: true
output_schema:
  type: object
  properties:
    findings:
      type: array
      items:
        type: object
        properties:
          severity: { type: string, enum: [high, low] }
          note: { type: string }
        required: [severity, note]
  required: [findings]
---
Audit the file you are given. Answer with JSON only.
`;

function withRole(file: string, text: string) {
  return ({ work }: { work: string }) => {
    mkdirSync(path.join(work, '.tea', 'agents'), { recursive: true });
    writeFileSync(path.join(work, '.tea', 'agents', file), text);
  };
}

describe('roles', () => {
  it("gives a built-in analyst only its read tools and at most read-only mode, whatever the parent's", async () => {
    const { rt } = await runtimeIn('permissions: { mode: yolo }\ntools: { loading: all }');
    model().respond((body) => {
      if (isChild(body)) return reply().text('analysed');
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { role: 'analyst' }));
      return reply().text('done');
    });
    const all = await collect(rt.sessions.create().prompt('analyse part 1'));
    const child = model().requests.find((r) => isChild(r.body))!;
    const names = toolNames(child.body);
    expect(names).toContain('read_file');
    expect(names).toContain('grep');
    for (const write of ['write_file', 'edit_file', 'bash', 'task']) expect(names).not.toContain(write);
    expect(systemOf(child.body)).toContain('Permission mode: read-only');
    expect(systemOf(child.body)).toContain('## Your role: analyst');
    expect(toolOutput(all, 'task')).toContain('[sub-agent analyst #1 · completed');
  });

  it("sends a role's whole tool list (it has no tool_search to load more)", async () => {
    const { rt } = await runtimeIn();
    model().respond((body) => {
      if (isChild(body)) return reply().text('reviewed');
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { role: 'reviewer' }));
      return reply().text('done');
    });
    await collect(rt.sessions.create().prompt('review part 1'));
    const child = model().requests.find((r) => isChild(r.body))!;
    expect(toolNames(child.body)).toEqual(expect.arrayContaining(['read_file', 'grep', 'glob', 'git_diff']));
    expect(toolNames(child.body)).not.toContain('tool_search');
    expect(systemOf(child.body)).not.toContain('load with tool_search');
  });

  it('lists the roles, built-in and from files, in the task tool’s description', async () => {
    const { rt } = await runtimeIn('tools: { loading: all }', { before: withRole('auditor.md', AUDITOR) });
    model().script(reply().text('hi'));
    await collect(rt.sessions.create().prompt('hello'));
    const tools = model().requests[0]!.body.tools as Array<{
      function: { name: string; description: string };
    }>;
    const description = tools.find((t) => t.function.name === 'task')!.function.description;
    for (const name of ['general', 'analyst', 'coder', 'tester', 'reviewer', 'auditor'])
      expect(description).toContain(`- ${name}: `);
  });

  it('validates a structured answer, with one repair round for an invalid one', async () => {
    const { rt } = await runtimeIn('', { before: withRole('auditor.md', AUDITOR) });
    let childCalls = 0;
    model().respond((body) => {
      if (isChild(body)) {
        childCalls++;
        // First a wrong severity, then a valid answer in a fence.
        return childCalls === 1
          ? reply().text('{"findings":[{"severity":"urgent","note":"x"}]}')
          : reply().text('```json\n{"findings":[{"severity":"high","note":"unchecked input"}]}\n```');
      }
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { role: 'auditor' }));
      return reply().text('done');
    });
    const all = await collect(rt.sessions.create().prompt('audit part 1'));
    expect(childCalls).toBe(2);
    const repair = model().requests.filter((r) => isChild(r.body))[1]!;
    const lastUser = JSON.stringify(repair.body.messages).slice(-2000);
    expect(lastUser).toContain('findings[0].severity');
    const out = toolOutput(all, 'task');
    expect(out).toContain('· completed ·');
    expect(out).toContain('Output (valid JSON):');
    expect(out).toContain('"note": "unchecked input"');
  });

  it('fails clearly when the repaired answer is still invalid', async () => {
    const { rt } = await runtimeIn('', { before: withRole('auditor.md', AUDITOR) });
    model().respond((body) => {
      if (isChild(body)) return reply().text('I found nothing worth reporting.');
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { role: 'auditor' }));
      return reply().text('done');
    });
    const all = await collect(rt.sessions.create().prompt('audit part 1'));
    expect(model().requests.filter((r) => isChild(r.body))).toHaveLength(2);
    const out = toolOutput(all, 'task');
    expect(out).toContain('· failed ·');
    expect(out).toContain("did not match the role's output schema after one repair round");
  });

  it('offers a role marked as_tool as a tool of its own', async () => {
    const { rt } = await runtimeIn('tools: { loading: all }', { before: withRole('auditor.md', AUDITOR) });
    model().respond((body) => {
      if (isChild(body)) return reply().text('{"findings":[]}');
      if (isFirstCall(body)) return reply().toolCall('agent_auditor', { prompt: 'Audit part 1.' });
      return reply().text('done');
    });
    const all = await collect(rt.sessions.create().prompt('audit'));
    const parent = model().requests[0]!;
    expect(toolNames(parent.body)).toContain('agent_auditor');
    const child = model().requests.find((r) => isChild(r.body))!;
    expect(systemOf(child.body)).toContain('## Your role: auditor');
    // Claude Code's Read and Grep, mapped to tea's tools: nothing that writes, runs or delegates.
    expect(toolNames(child.body)).toEqual(expect.arrayContaining(['read_file', 'grep']));
    for (const other of ['write_file', 'bash', 'task', 'agent_auditor'])
      expect(toolNames(child.body)).not.toContain(other);
    expect(toolOutput(all, 'agent_auditor')).toContain('Output (valid JSON):');
  });

  it('runs a role on the profile its file names', async () => {
    const role = '---\nname: fast\ndescription: Quick lookups.\nmodel: quick\n---\nBe quick.\n';
    const { rt } = await runtimeIn(
      `profiles:\n  quick: { base_url: ${model().openaiBaseUrl}, api_key: sk-test, model: quick-model }`,
      { before: withRole('fast.md', role) },
    );
    model().respond((body) => {
      if (isChild(body)) return reply().text('quick answer');
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { role: 'fast' }));
      return reply().text('done');
    });
    await collect(rt.sessions.create().prompt('look it up'));
    const child = model().requests.find((r) => isChild(r.body))!;
    expect(child.body.model).toBe('quick-model');
    expect(model().requests[0]!.body.model).toBe('scripted-model');
  });
});

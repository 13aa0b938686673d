import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const t = useScriptedCli('sk-test');
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });

/** A cheap model on the same scripted server, told apart by its model name. */
function cheapModel(): void {
  writeFileSync(
    path.join(t.ctx.home, 'config.yaml'),
    `cheap_model:\n  provider: openai\n  base_url: ${t.server.openaiBaseUrl}\n  model: cheap-model\n`,
  );
}

const system = (i: number) => wireText(wireMessages(t.server.requests[i]!.body)[0]!);

describe('memory extraction end to end (tea -p)', () => {
  it('a conversation in, memories stored on the cheap model, the next session’s request carries them', async () => {
    cheapModel();
    t.server.script(
      reply().text('Noted: Berlin, and metric units from now on.'),
      reply().text(
        '```json\n[{"content": "The user lives in Berlin", "category": "fact", "subject": "user", "attribute": "home city", "value": "Berlin"},' +
          ' {"content": "Always use metric units", "category": "instruction", "importance": 5}]\n```',
      ),
    );
    const first = await tea(['-p', 'I live in Berlin. Always use metric units with me.']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Noted: Berlin');
    expect(t.server.requests[1]!.body.model).toBe('cheap-model');
    expect(wireMessages(t.server.requests[1]!.body).map(wireText).join('\n')).toContain(
      'User: I live in Berlin. Always use metric units with me.',
    );

    const listed = JSON.parse((await tea(['memory', 'list', '--json'])).stdout) as Array<{
      content: string;
      priority: number;
    }>;
    expect(listed.map((m) => [m.content, m.priority]).sort()).toEqual([
      ['Always use metric units', 0],
      ['The user lives in Berlin', 2],
    ]);

    t.server.script(reply().text('It is about 9 km away.'), reply().text('[]'));
    const second = await tea(['-p', 'How far is Potsdam?']);
    expect(second.code).toBe(0);
    expect(system(2)).toContain('!!! Must follow: Always use metric units');
    expect(system(2)).toContain('The user lives in Berlin');
  });

  it('memory.extract: false in config turns it off', async () => {
    writeFileSync(path.join(t.ctx.home, 'config.yaml'), 'memory:\n  extract: false\n');
    t.server.script(reply().text('Noted.'));
    expect((await tea(['-p', 'I live in Berlin.'])).code).toBe(0);
    expect(t.server.requests).toHaveLength(1);
    expect(JSON.parse((await tea(['memory', 'list', '--json'])).stdout)).toEqual([]);
  });
});

/** `tea memory add` with a model configured: the judge decides close pairs; --offline and failures fall back. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const t = useScriptedCli('sk-test');
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });
const active = async () =>
  (JSON.parse((await tea(['memory', 'list', '--json'])).stdout) as Array<{ content: string }>)
    .map((m) => m.content)
    .sort();

describe('tea memory add with a judge model', () => {
  it('asks nothing for a statement with nothing close; the judge settles an ambiguous pair', async () => {
    expect((await tea(['memory', 'add', 'Tundra is maintained by Anika Petrov.'])).stdout).toMatch(
      /^new: #1 /,
    );
    expect(t.server.requests).toHaveLength(0);

    t.server.script(
      reply().text(
        '```json\n{"decision": "update", "id": 1, "subject": "Tundra", "attribute": "maintainer", "value": "Bruno Quinlan"}\n```',
      ),
    );
    const r = await tea(['memory', 'add', 'Tundra has a new maintainer: Bruno Quinlan.']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^update: #2 .*Bruno Quinlan.*, replacing #1 \(judged by scripted-model\)$/m);
    expect(t.server.requests).toHaveLength(1);
    const sent = wireMessages(t.server.requests[0]!.body).map(wireText).join('\n');
    expect(sent).toMatch(/\[id=1\] \(fact, since \d{4}-\d{2}-\d{2}\) Tundra is maintained by Anika Petrov\./);
    expect(sent).toContain('NEW (fact): Tundra has a new maintainer: Bruno Quinlan.');
    expect(await active()).toEqual(['Tundra has a new maintainer: Bruno Quinlan.']);
  });

  it('a malformed reply keeps both', async () => {
    await tea(['memory', 'add', 'Tundra is maintained by Anika Petrov.']);
    t.server.script(reply().text('Looks like an update to me!'));
    const r = await tea(['memory', 'add', 'Tundra has a new maintainer: Bruno Quinlan.']);
    expect(r.stdout).toMatch(/^new: #2 /);
    expect(r.stderr).toBe(
      'tea: the memory judge (scripted-model) could not decide (its answer held no usable verdict); decided without it\n',
    );
    expect(t.server.requests).toHaveLength(1);
    expect(await active()).toHaveLength(2);
  });

  it('a model that fails keeps both at once (no retry for a command), and says why on stderr', async () => {
    await tea(['memory', 'add', 'Tundra is maintained by Anika Petrov.']);
    t.server.respond(() => reply().error(500, { message: 'overloaded' }));
    const r = await tea(['memory', 'add', 'Tundra has a new maintainer: Bruno Quinlan.']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^new: #2 /);
    expect(r.stderr).toMatch(
      /^tea: the memory judge \(scripted-model\) could not decide \(.*overloaded.*\); decided without it$/m,
    );
    expect(t.server.requests).toHaveLength(1);
  });

  it('--offline never asks; memory.judge: false in the config neither', async () => {
    await tea(['memory', 'add', 'Tundra is maintained by Anika Petrov.']);
    expect(
      (await tea(['memory', 'add', '--offline', 'Tundra has a new maintainer: Bruno Quinlan.'])).stdout,
    ).toMatch(/^new: /);
    writeFileSync(path.join(t.ctx.home, 'config.yaml'), 'memory:\n  judge: false\n');
    expect((await tea(['memory', 'add', 'Tundra now belongs to the platform team.'])).stdout).toMatch(
      /^new: /,
    );
    expect(t.server.requests).toHaveLength(0);
  });

  it('import --ingest asks the judge as it goes', async () => {
    const file = path.join(t.ctx.work, 'm.json');
    writeFileSync(
      file,
      JSON.stringify([
        { content: 'Tundra has a new maintainer: Bruno Quinlan.', created_at: '2025-06-01' },
        { content: 'Tundra is maintained by Anika Petrov.', created_at: '2025-01-01' },
      ]),
    );
    t.server.respond(() => reply().text('{"decision": "update", "id": 1}'));
    const r = await tea(['memory', 'import', file, '--ingest']);
    expect(r.stdout).toBe(
      'ingested 2 statements in time order: 1 new, 1 updates, 0 duplicates, 0 earlier versions\n',
    );
    expect(await active()).toEqual(['Tundra has a new maintainer: Bruno Quinlan.']);
  });
});

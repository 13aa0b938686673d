/**
 * Tools through the BUILT CLI (dist/), as a user runs `tea -p` with a scripted model
 * (issue 13): web_fetch turns an HTML page into Markdown in the esbuild bundle, and a
 * long bash output is saved in full where the session keeps tool outputs.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { startServer } from './web-fixtures.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });

/** The text of the tool result the CLI sent back to the model in request `i`. */
function toolResult(i: number): string {
  const message = wireMessages(t.server.requests[i]!.body).find((m) => m.role === 'tool');
  return message === undefined ? '' : wireText(message);
}

describe('tools in the built CLI', () => {
  it('web_fetch converts an HTML page to Markdown', async () => {
    const page = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<!doctype html><html><head><title>Tea page</title></head><body><nav>MENU</nav>' +
          '<main><h1>Hello</h1><p>Some <b>bold</b> text.</p></main></body></html>',
      );
    });
    t.server.script(reply().toolCall('web_fetch', { url: `${page.url}/page` }), reply().text('Read it.'));
    const r = await tea(['-p', 'read that page', '--allow', 'web_fetch']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Read it.\n');
    const result = toolResult(1);
    expect(result).not.toContain('[ERROR]');
    expect(result).toContain('Tea page');
    expect(result).toContain('# Hello\n\nSome **bold** text.');
    expect(result).not.toContain('MENU');
  });

  it('bash output over the limit is cut for the model and saved in full for it to read', async () => {
    t.server.script(reply().toolCall('bash', { command: 'seq 1 30000' }), reply().text('Counted.'));
    const r = await tea(['-p', 'count', '--allow', 'bash', '--sandbox', 'off']);
    expect(r.code).toBe(0);
    const result = toolResult(1);
    const saved = /\[full output \((\d+) chars\) saved to (\S+); read_file it/.exec(result);
    expect(saved, result.slice(-300)).not.toBeNull();
    const file = saved?.[2] ?? '';
    expect(file.startsWith(path.join(t.ctx.home, 'tool-output') + path.sep)).toBe(true);
    expect(existsSync(file)).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(text.length).toBe(Number(saved?.[1]));
    expect(text).toContain('\n14999\n15000\n15001\n');
    expect(text.endsWith('\n30000')).toBe(true);
    expect(result.length).toBeLessThanOrEqual(30_000);
  });
});

/**
 * Traces from the shipped CLI: `tea -p` keeps its spans and `tea trace list|show`
 * print them; with OTEL_EXPORTER_OTLP_ENDPOINT set, a small OTLP/HTTP collector on
 * loopback receives them instead, before `tea -p` exits.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const cli = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

function scriptToolRun(): void {
  cli.server.script(
    reply().toolCall('read_file', { path: 'notes.txt' }).usage(12, 3),
    reply().text('It has two lines.').usage(20, 4),
  );
}

async function teaP(env: NodeJS.ProcessEnv = cli.ctx.env) {
  writeFileSync(path.join(cli.ctx.work, 'notes.txt'), 'one\ntwo\n');
  return runTea(
    [
      '-p',
      'how many lines has notes.txt?',
      '--cwd',
      cli.ctx.work,
      '--allow',
      'read_file',
      '--output-format',
      'json',
    ],
    {
      env,
    },
  );
}

describe('tea trace', () => {
  it('lists the runs with kept traces and shows one as a span tree (text and JSON)', async () => {
    const none = await runTea(['trace', 'list'], { env: cli.ctx.env });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('No traces kept yet');

    scriptToolRun();
    const run = await teaP();
    expect(run.code).toBe(0);
    const sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;

    const list = await runTea(['trace', 'list'], { env: cli.ctx.env });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(
        `^${sessionId.slice(0, 8)}  \\S+ \\S+  invoke_agent tea  1 trace  4 spans  32 in / 7 out tokens\\n$`,
      ),
    );

    const show = await runTea(['trace', 'show', sessionId.slice(0, 6)], { env: cli.ctx.env });
    expect(show.code).toBe(0);
    const lines = show.stdout.split('\n');
    expect(lines[0]).toBe(`run ${sessionId}  session "how many lines has notes.txt?"  1 trace, 4 spans`);
    expect(lines[2]).toMatch(/^trace [0-9a-f]{32} {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}\d+ ms|s$/);
    expect(lines[3]).toMatch(/^invoke_agent tea {2}\S+ m?s {2}32 in \/ 7 out tokens {2}completed$/);
    expect(lines[4]).toMatch(/^├─ chat scripted-model {2}\S+ m?s {2}12 in \/ 3 out tokens {2}tool_calls$/);
    expect(lines[5]).toMatch(/^├─ execute_tool read_file {2}\S+ m?s {2}ok$/);
    expect(lines[6]).toMatch(/^└─ chat scripted-model {2}\S+ m?s {2}20 in \/ 4 out tokens {2}stop$/);

    const json = await runTea(['trace', 'show', sessionId, '--json'], { env: cli.ctx.env });
    const doc = JSON.parse(json.stdout) as {
      run_id: string;
      kind: string;
      traces: Array<{
        roots: Array<{
          name: string;
          attributes: Record<string, unknown>;
          children: Array<{ name: string; parent_id: string }>;
        }>;
      }>;
    };
    expect(doc).toMatchObject({ run_id: sessionId, kind: 'session' });
    const root = doc.traces[0]!.roots[0]!;
    expect(root.children.map((c) => c.name)).toEqual([
      'chat scripted-model',
      'execute_tool read_file',
      'chat scripted-model',
    ]);
    // Attribute names are the conventions' own, not snake-cased again.
    expect(root.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 32,
      'gen_ai.conversation.id': sessionId,
    });

    const unknown = await runTea(['trace', 'show', 'nope-nope'], { env: cli.ctx.env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^tea: no kept trace for 'nope-nope': .*tea trace list/);
  });
});

interface Received {
  headers: IncomingHttpHeaders;
  path: string;
  body: OtlpBody;
}
interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: OtlpValue }>;
  status?: { code?: number };
}
interface OtlpBody {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: OtlpValue }> };
    scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }>;
  }>;
}

/** A minimal OTLP/HTTP collector: records each JSON request, answers 200. */
async function collector(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        headers: req.headers,
        path: req.url ?? '',
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, server };
}

const value = (v: OtlpValue | undefined): unknown =>
  v?.stringValue ??
  (v?.intValue !== undefined ? Number(v.intValue) : (v?.boolValue ?? v?.arrayValue?.values.map(value)));
const attrs = (list: Array<{ key: string; value: OtlpValue }>): Record<string, unknown> =>
  Object.fromEntries(list.map((a) => [a.key, value(a.value)]));

describe('the OpenTelemetry SDK', () => {
  // test/global-setup.ts has built dist/.
  const dist = path.resolve(path.dirname(TEA_BIN), '..', 'dist');

  it('is not in the CLI bundle: dist/otlp.cjs holds it, required only when an endpoint is set', () => {
    const sdk = 'Export failed after maximum retry attempts'; // the OTLP exporter's own words
    expect(readFileSync(path.join(dist, 'tea.cjs'), 'latin1')).not.toContain(sdk);
    expect(readFileSync(path.join(dist, 'tea.cjs'), 'latin1')).toContain('require("./otlp.cjs")');
    expect(readFileSync(path.join(dist, 'otlp.cjs'), 'latin1')).toContain(sdk);
  });
});

describe('OTLP export', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it('sends the spans of tea -p to the collector at OTEL_EXPORTER_OTLP_ENDPOINT before exiting', async () => {
    const c = await collector();
    server = c.server;
    scriptToolRun();
    const run = await teaP({
      ...cli.ctx.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: c.url,
      OTEL_SERVICE_NAME: 'tea-under-test',
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;

    expect(c.received.length).toBeGreaterThan(0);
    expect(c.received.every((r) => r.path === '/v1/traces')).toBe(true);
    expect(c.received[0]!.headers['content-type']).toContain('application/json');
    const resources = c.received.flatMap((r) => r.body.resourceSpans);
    expect(attrs(resources[0]!.resource.attributes)).toMatchObject({ 'service.name': 'tea-under-test' });
    const spans = resources.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    expect(spans.map((s) => s.name).sort()).toEqual([
      'chat scripted-model',
      'chat scripted-model',
      'execute_tool read_file',
      'invoke_agent tea',
    ]);
    const root = spans.find((s) => s.name === 'invoke_agent tea')!;
    expect(root.parentSpanId ?? '').toBe('');
    for (const s of spans) {
      expect(s.traceId).toBe(root.traceId);
      if (s !== root) expect(s.parentSpanId).toBe(root.spanId);
    }
    expect(attrs(root.attributes)).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'tea',
      'gen_ai.conversation.id': sessionId,
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'scripted-model',
      'gen_ai.usage.input_tokens': 32,
      'gen_ai.usage.output_tokens': 7,
    });
    const chat = spans.find((s) => s.name === 'chat scripted-model')!;
    expect(chat.kind).toBe(3); // OTLP's SPAN_KIND_CLIENT
    expect(attrs(chat.attributes)).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.response.model': 'scripted-model',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    const tool = spans.find((s) => s.name === 'execute_tool read_file')!;
    expect(attrs(tool.attributes)).toMatchObject({
      'gen_ai.tool.name': 'read_file',
      'tea.tool.status': 'ok',
    });

    // Exported, so not kept here as well.
    const list = await runTea(['trace', 'list'], { env: cli.ctx.env });
    expect(list.stdout).toContain('No traces kept yet');
  });

  it('still answers, with a warning, when the collector cannot be reached', async () => {
    const c = await collector();
    const url = c.url;
    await new Promise((resolve) => c.server.close(resolve));
    scriptToolRun();
    const run = await teaP({ ...cli.ctx.env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${url}/v1/traces` });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ result: 'It has two lines.' });
    expect(run.stderr).toMatch(
      new RegExp(
        `^tea: warning: (traces were not exported to|the last traces did not reach) ${url}/v1/traces`,
      ),
    );
  });

  it('says so and keeps traces locally when the endpoint is not a URL', async () => {
    scriptToolRun();
    const run = await teaP({ ...cli.ctx.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'tea: warning: OTEL_EXPORTER_OTLP_ENDPOINT is not an http(s) URL (localhost:4318/v1/traces); traces are kept locally instead',
    );
    const list = await runTea(['trace', 'list'], { env: cli.ctx.env });
    expect(list.stdout).toContain('invoke_agent tea');
  });
});

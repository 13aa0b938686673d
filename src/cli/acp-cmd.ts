/** `tea acp`: the Agent Client Protocol agent on stdio (stdout carries protocol traffic only). */
import { Readable, Writable } from 'node:stream';
import { mcpConnector } from '../acp/mcp.js';
import { serveAcp } from '../acp/server.js';
import { serveAcpUnavailable } from '../acp/unavailable.js';
import { RuntimeError } from '../runtime/errors.js';
import type { SandboxMode } from '../tools/sandbox/sandbox.js';
import { EXIT } from './exit.js';
import { cliRuntime, type Runtime } from './runtime.js';
import { VERSION } from './version.js';

/** Flags of `tea acp` (registered in acp-cli.ts). */
export interface AcpFlags {
  cwd?: string;
  profile?: string;
  model?: string;
  /** read-only | ask | auto-edit | yolo */
  permissionMode?: string;
  yolo?: boolean;
  /** Inherited from the top-level command: `--allow` rules and `--add-dir` roots. */
  allow?: string[];
  addDir?: string[];
  sandbox?: SandboxMode;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

export async function runAcp(flags: AcpFlags): Promise<number> {
  let rt: Runtime;
  try {
    rt = await runtimeFor(flags);
  } catch (error) {
    if (!(error instanceof RuntimeError && error.code === 'no_model')) throw error;
    // The editor still gets its `initialize` answer, then the reason with every session request.
    log(`tea acp: ${error.message}`);
    await serveAcpUnavailable({
      version: VERSION,
      reason: `Tea has no model configured. ${error.message}`,
      input: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
      output: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    });
    return EXIT.NO_MODEL;
  }
  const mcp = mcpConnector({
    home: rt.config.home,
    warn: (m) => log(`tea acp: warning: ${m}`),
    clientInfo: { name: 'tea-agent', version: VERSION },
  });
  try {
    await serveAcp({
      agent: rt.agent,
      tools: rt.tools,
      memory: rt.memory,
      contextWindow: rt.provider.info.contextWindow,
      home: rt.config.home,
      version: VERSION,
      log,
      mcp,
      input: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
      output: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    });
  } finally {
    await mcp.close();
    await rt.close();
  }
  return EXIT.OK;
}

function runtimeFor(flags: AcpFlags): Promise<Runtime> {
  return cliRuntime({ ...flags, approvals: 'ask', titles: true });
}

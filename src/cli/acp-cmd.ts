/** `tea acp`: the Agent Client Protocol agent on stdio (stdout carries protocol traffic only). */
import { Readable, Writable } from 'node:stream';
import { mcpAttacher } from '../acp/mcp.js';
import { serveAcp } from '../acp/server.js';
import type { SandboxMode } from '../tools/sandbox/sandbox.js';
import { EXIT } from './exit.js';
import { createRuntime } from './runtime.js';
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
  const rt = await createRuntime({
    ...(flags.cwd ? { cwd: flags.cwd } : {}),
    ...(flags.profile ? { profile: flags.profile } : {}),
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.permissionMode ? { permissionMode: flags.permissionMode } : {}),
    ...(flags.yolo ? { yolo: true } : {}),
    ...(flags.allow ? { allow: flags.allow } : {}),
    ...(flags.addDir ? { addDir: flags.addDir } : {}),
    ...(flags.sandbox ? { sandbox: flags.sandbox } : {}),
    approvals: 'ask',
    titles: true,
  });
  const mcp = mcpAttacher({
    tools: rt.tools,
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
      version: VERSION,
      log,
      attachMcp: (servers, cwd) => mcp.attach(servers, cwd),
      input: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
      output: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    });
  } finally {
    await mcp.close();
    rt.close();
  }
  return EXIT.OK;
}

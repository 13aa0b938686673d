/** `tea acp`: the Agent Client Protocol agent on stdio (stdout carries protocol traffic only). */
import { Readable, Writable } from 'node:stream';
import { mcpConnector } from '../acp/mcp.js';
import { serveAcp } from '../acp/server.js';
import { USAGE_UPDATE_SETTINGS, type UsageUpdatesSetting } from '../acp/usage-gate.js';
import { NO_MODEL_CONTEXT_WINDOW } from '../runtime/no-model.js';
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
  /** auto | on | off: which clients get `usage_update` (acp/usage-gate.ts). */
  usageUpdates?: string;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

export async function runAcp(flags: AcpFlags): Promise<number> {
  const usageUpdates = flags.usageUpdates ?? 'auto';
  if (!(USAGE_UPDATE_SETTINGS as readonly string[]).includes(usageUpdates)) {
    log(
      `tea acp: --usage-updates must be one of ${USAGE_UPDATE_SETTINGS.join(', ')}, got ${JSON.stringify(usageUpdates)}`,
    );
    return EXIT.USAGE;
  }
  const rt = await runtimeFor(flags);
  const model = activeModel(rt);
  // With no model, sessions still run rules (`!cmd`, `/read`, …); other prompts fail with how to configure one.
  if (!model) log('tea acp: no model is configured: only rules (!<command>, /read, /ls, /grep, /time) work');
  const mcp = mcpConnector({
    home: rt.config.home,
    warn: (m) => log(`tea acp: warning: ${m}`),
    clientInfo: { name: 'tea-agent', version: VERSION },
    sampling: rt.config.mcpSampling,
    unattended: rt.config.mcpElicitation.unattended,
  });
  try {
    await serveAcp({
      agent: rt.agent,
      tools: rt.tools,
      memory: rt.memory,
      contextWindow: model?.contextWindow ?? NO_MODEL_CONTEXT_WINDOW,
      home: rt.config.home,
      version: VERSION,
      log,
      mcp,
      backend: {
        sessions: rt.sessions,
        models: rt.models,
        agentFor: (profile) => rt.agentFor(profile, { approvals: 'ask' }),
      },
      usageUpdates: usageUpdates as UsageUpdatesSetting,
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
  return cliRuntime({ ...flags, approvals: 'ask', titles: true, modelOptional: () => true });
}

/** The active profile's model; undefined when none is configured. */
function activeModel(rt: Runtime): { contextWindow: number } | undefined {
  try {
    return rt.provider.info;
  } catch {
    return undefined;
  }
}

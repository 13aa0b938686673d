import type { Command } from 'commander';
import type { AcpFlags } from './acp-cmd.js';
import { commandFlags } from './flags.js';
import { permissionModeOption } from './options.js';
import { SANDBOX_FLAG_HELP, sandboxFlag } from './sandbox-flag.js';

/** Registers `tea acp` (options only; the implementation and the ACP SDK load when it runs). */
export function addAcpCommand(program: Command, setCode: (code: number) => void): void {
  program
    .command('acp')
    .description('talk to an editor over the Agent Client Protocol (JSON-RPC on stdio)')
    .option('--cwd <dir>', 'default workspace (sessions use the directory the editor sends)')
    .option('--profile <name>', 'config profile to use as the main model')
    .option('-m, --model <model>', 'model name (overrides main_model.model)')
    .addOption(permissionModeOption('initial mode of new sessions: read-only | ask | auto-edit | yolo'))
    .option('--yolo', 'run every tool without asking (same as --permission-mode yolo)')
    .option('--sandbox <mode>', SANDBOX_FLAG_HELP, sandboxFlag)
    .option(
      '--usage-updates <when>',
      'send usage_update (context and cost) to: auto (clients that send clientInfo or ask in _meta) | on (every client) | off',
    )
    .action(async (_opts: AcpFlags, cmd: Command) => {
      // Flags may sit before `acp` (the root's) or after it (its own): merged, given ones win.
      const flags = commandFlags<AcpFlags>(cmd);
      const { runAcp } = await import('./acp-cmd.js');
      setCode(await runAcp(flags));
    });
}

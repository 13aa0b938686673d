import type { Command } from 'commander';
import { CliError } from './exit.js';

/** Registers `tea acp` (options only; the implementation loads when it runs). */
export function addAcpCommand(program: Command, _setCode: (code: number) => void): void {
  program
    .command('acp')
    .description('talk to an editor over the Agent Client Protocol (stdio)')
    .action(() => {
      throw new CliError('tea acp is not built yet');
    });
}

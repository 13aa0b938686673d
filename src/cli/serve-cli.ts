import type { Command } from 'commander';
import { CliError } from './exit.js';

/** Registers `tea serve` (options only; the implementation loads when it runs). */
export function addServeCommand(program: Command, _setCode: (code: number) => void): void {
  program
    .command('serve')
    .description('run the HTTP API and web UI')
    .action(() => {
      throw new CliError('tea serve is not built yet');
    });
}

import type { Command } from 'commander';
import { CliError } from './exit.js';

/** Registers `tea mcp` (options only; the implementation loads when it runs). */
export function addMcpCommand(program: Command, _setCode: (code: number) => void): void {
  program
    .command('mcp')
    .description('MCP servers: list, tools, serve')
    .action(() => {
      throw new CliError('tea mcp is not built yet');
    });
}

/**
 * The long-running faces: `tea serve`, `tea acp` and `tea mcp`. Each registers its
 * options here (cheap) and loads its implementation only when run.
 */
import type { Command } from 'commander';
import { addAcpCommand } from './acp-cli.js';
import { addMcpCommand } from './mcp-cli.js';
import { addServeCommand } from './serve-cli.js';

export function addFaceCommands(program: Command, setCode: (code: number) => void): void {
  addServeCommand(program, setCode);
  addAcpCommand(program, setCode);
  addMcpCommand(program, setCode);
}

/** system_info and env_get: what machine this is, and a guarded look at the environment. */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import * as z from 'zod';
import { defineTool, type Tool, ToolError } from '../types.js';
import type { ResolvedSystemOptions } from './system-options.js';
import { looksSecret, SECRET_NAME } from './system-secrets.js';
import { formatSize } from './text.js';

/** `3d 4h 12m`, `5m`: an uptime as people read it. */
export function formatUptime(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds / 60));
  const days = Math.floor(total / 1440);
  const hours = Math.floor((total % 1440) / 60);
  const minutes = total % 60;
  const parts = [days > 0 ? `${days}d` : '', days > 0 || hours > 0 ? `${hours}h` : '', `${minutes}m`];
  return parts.filter((p) => p !== '').join(' ');
}

async function distroName(): Promise<string | undefined> {
  const text = await readFile('/etc/os-release', 'utf8').catch(() => '');
  const match = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text);
  return match?.[1];
}

function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? String(process.getuid?.() ?? 'unknown');
  }
}

function systemInfoTool(): Tool {
  return defineTool({
    name: 'system_info',
    description:
      'Describe this machine: OS and release, architecture, CPU model and count, total/free memory, uptime, ' +
      'load average, Node version, shell, hostname and user.',
    parameters: z.object({}),
    category: 'system',
    keywords: [
      'system',
      'os',
      'machine',
      'cpu',
      'memory',
      'ram',
      'uptime',
      'hostname',
      '系统',
      '内存',
      '机器',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 10_000,
    async execute() {
      const cpus = os.cpus();
      const model = cpus[0]?.model.trim() || 'unknown model';
      const distro = process.platform === 'linux' ? await distroName() : undefined;
      const load = os
        .loadavg()
        .map((n) => n.toFixed(2))
        .join(' ');
      const shell = process.env.SHELL ?? process.env.ComSpec ?? 'unknown';
      return [
        `os: ${os.type()} ${os.release()} (${process.platform}, ${os.arch()})${distro ? `, ${distro}` : ''}`,
        `cpu: ${model} × ${cpus.length}`,
        `memory: ${formatSize(os.freemem())} free of ${formatSize(os.totalmem())}`,
        `uptime: ${formatUptime(os.uptime())}`,
        `load average: ${load}`,
        `node: ${process.version}`,
        `shell: ${shell}`,
        `hostname: ${os.hostname()}`,
        `user: ${userName()}`,
      ].join('\n');
    },
  });
}

function envGetTool(opts: ResolvedSystemOptions): Tool {
  const allowed = [...new Set(opts.envAllow)];
  const allowedList = allowed.join(', ');
  return defineTool({
    name: 'env_get',
    description:
      `Read one environment variable from an allow-list (${allowedList}). Variables that look ` +
      'like keys, tokens or passwords are never returned.',
    parameters: z.object({
      name: z.string().min(1).describe('Variable name, case-sensitive, e.g. PATH'),
    }),
    category: 'system',
    keywords: ['env', 'environment', 'variable', 'path', 'home', 'shell', 'locale', '环境变量'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 5000,
    subject: (args) => args.name,
    async execute(args) {
      const name = args.name.trim();
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        throw new ToolError(
          `"${args.name}" is not a valid environment variable name`,
          'use letters, digits and underscores, e.g. PATH',
        );
      }
      if (SECRET_NAME.test(name)) {
        throw new ToolError(
          `Refusing to read ${name}: its name suggests a secret`,
          'secrets are never shown; ask the user to check it themselves if it matters',
        );
      }
      if (!allowed.includes(name)) {
        const sameLetters = allowed.find((a) => a.toLowerCase() === name.toLowerCase());
        const near = sameLetters ? ` (names are case-sensitive: did you mean ${sameLetters}?)` : '';
        throw new ToolError(
          `${name} is not on the env_get allow-list${near}`,
          `readable variables: ${allowedList}; more can be allowed in the configuration`,
        );
      }
      const value = opts.env[name];
      if (value === undefined) return `${name} is not set`;
      if (looksSecret(name, value)) {
        throw new ToolError(
          `Refusing to show ${name}: its value looks like a credential`,
          'secrets are never shown; ask the user to check it themselves if it matters',
        );
      }
      return `${name}=${value}`;
    },
  });
}

export function infoTools(opts: ResolvedSystemOptions): Tool[] {
  return [systemInfoTool(), envGetTool(opts)];
}

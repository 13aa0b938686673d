/** process_list: running processes from /proc on Linux, from `ps` elsewhere. */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import * as z from 'zod';
import { defineTool, type Tool, ToolError } from '../types.js';
import type { ResolvedSystemOptions } from './system-options.js';
import { redactSecrets } from './system-secrets.js';
import { formatSize } from './text.js';

export interface ProcessRow {
  pid: number;
  ppid: number;
  /** User name, or the numeric uid when it has no name. */
  user: string;
  /** User plus system CPU time, in seconds. */
  cpuSeconds: number;
  rssBytes: number;
  command: string;
}

/** Clock ticks per second for /proc times; USER_HZ is 100 on every Linux architecture. */
const CLOCK_TICKS = 100;
const MAX_COMMAND_CHARS = 160;
const READ_BATCH = 64;
export const PROCESS_MAX_LIMIT = 500;

async function userNames(): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  for (const line of passwd.split('\n')) {
    const [name, , uid] = line.split(':');
    if (name && uid && !names.has(uid)) names.set(uid, name);
  }
  return names;
}

async function readProc(pid: string, users: Map<string, string>): Promise<ProcessRow | undefined> {
  const [stat, status, cmdline] = await Promise.all([
    readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined),
    readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined),
    readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''),
  ]);
  if (stat === undefined || status === undefined) return undefined; // exited while we looked
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  // Fields after "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
  const fields = stat.slice(close + 2).split(' ');
  const ticks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1] ?? '?';
  const rssKb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? 0);
  const args = cmdline.replace(/\0+$/, '').replace(/\0/g, ' ').trim();
  return {
    pid: Number(pid),
    ppid: Number(fields[1] ?? 0),
    user: users.get(uid) ?? uid,
    cpuSeconds: ticks / CLOCK_TICKS,
    rssBytes: rssKb * 1024,
    command: args === '' ? `[${comm}]` : redactSecrets(args),
  };
}

async function listFromProc(signal: AbortSignal): Promise<ProcessRow[]> {
  const users = await userNames();
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const rows: ProcessRow[] = [];
  for (let i = 0; i < pids.length; i += READ_BATCH) {
    signal.throwIfAborted();
    const batch = await Promise.all(pids.slice(i, i + READ_BATCH).map((pid) => readProc(pid, users)));
    for (const row of batch) if (row) rows.push(row);
  }
  return rows;
}

/** `[DD-]HH:MM:SS`, `MM:SS.cc` and the like, as printed by ps, in seconds. */
export function parsePsTime(text: string): number {
  const [days, clock] = text.includes('-') ? text.split('-', 2) : ['0', text];
  const parts = (clock ?? '').split(':').map(Number);
  let seconds = 0;
  for (const part of parts) seconds = seconds * 60 + (Number.isFinite(part) ? part : 0);
  return Number(days) * 86_400 + seconds;
}

const PS_LINE = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s?(.*)$/;

export function parsePsOutput(text: string): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const line of text.split('\n')) {
    const m = PS_LINE.exec(line);
    if (m === null) continue;
    rows.push({
      pid: Number(m[1]),
      ppid: Number(m[2]),
      user: m[3] ?? '?',
      cpuSeconds: parsePsTime(m[4] ?? '0'),
      rssBytes: Number(m[5]) * 1024,
      command: redactSecrets((m[6] ?? '').trim()) || '?',
    });
  }
  return rows;
}

function listFromPs(signal: AbortSignal): Promise<ProcessRow[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'ps',
      ['-eo', 'pid=,ppid=,user=,time=,rss=,args='],
      { signal, maxBuffer: 32 * 1024 * 1024, killSignal: 'SIGKILL', env: { ...process.env, LC_ALL: 'C' } },
      (error, stdout) => {
        if (error) {
          reject(
            new ToolError(`ps failed: ${error.message}`, 'this system may not have ps; try bash instead'),
          );
        } else resolve(parsePsOutput(stdout));
      },
    );
  });
}

/** `0:05.20` under an hour, `3:02:11` above. */
export function formatCpu(seconds: number): string {
  const whole = Math.floor(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  if (h > 0) return `${h}:${String(m).padStart(2, '0')}:${String(whole % 60).padStart(2, '0')}`;
  const s = (seconds - h * 3600 - m * 60).toFixed(2).padStart(5, '0');
  return `${m}:${s}`;
}

function formatTable(rows: ProcessRow[]): string {
  const header = ['PID', 'PPID', 'USER', 'CPU', 'RSS', 'COMMAND'];
  const cells = rows.map((r) => [
    String(r.pid),
    String(r.ppid),
    r.user,
    formatCpu(r.cpuSeconds),
    formatSize(r.rssBytes),
    r.command.length > MAX_COMMAND_CHARS ? `${r.command.slice(0, MAX_COMMAND_CHARS)}…` : r.command,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (cols: string[]): string =>
    cols
      .map((c, i) =>
        i === cols.length - 1 ? c : i === 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0),
      )
      .join('  ');
  return [line(header), ...cells.map(line)].join('\n');
}

export function processListTool(opts: ResolvedSystemOptions): Tool {
  return defineTool({
    name: 'process_list',
    description:
      'List running processes (pid, parent, user, CPU time, memory, command), optionally only those whose ' +
      `command or user contains \`filter\`; sorted by memory or CPU time, at most ${PROCESS_MAX_LIMIT} rows. ` +
      'Credentials in command lines are redacted.',
    parameters: z.object({
      filter: z.string().optional().describe('Case-insensitive text the command or user must contain'),
      max: z
        .number()
        .int()
        .min(1)
        .max(PROCESS_MAX_LIMIT)
        .optional()
        .describe(`Rows to show (default ${opts.processDefaultMax})`),
      sort_by: z.enum(['rss', 'cpu']).optional().describe('Sort by memory (rss, default) or CPU time'),
    }),
    category: 'system',
    keywords: [
      'process',
      'processes',
      'ps',
      'running',
      'pid',
      'top',
      'memory',
      'cpu',
      'kill',
      '进程',
      '任务',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 30_000,
    subject: (args) => args.filter ?? '',
    async execute(args, ctx) {
      const useProc =
        opts.processBackend === 'proc' || (opts.processBackend === 'auto' && opts.platform === 'linux');
      const all = useProc ? await listFromProc(ctx.signal) : await listFromPs(ctx.signal);
      const needle = args.filter?.trim().toLowerCase() ?? '';
      const matching = all.filter(
        (r) =>
          needle === '' || r.command.toLowerCase().includes(needle) || r.user.toLowerCase().includes(needle),
      );
      const sortBy = args.sort_by ?? 'rss';
      matching.sort((a, b) =>
        sortBy === 'rss'
          ? b.rssBytes - a.rssBytes || b.cpuSeconds - a.cpuSeconds
          : b.cpuSeconds - a.cpuSeconds,
      );
      const max = args.max ?? opts.processDefaultMax;
      const shown = matching.slice(0, max);
      const what = needle === '' ? '' : `, ${matching.length} matching "${args.filter}"`;
      const summary = `${all.length} processes${what}; top ${shown.length} by ${sortBy === 'rss' ? 'memory' : 'CPU time'}`;
      if (shown.length === 0) return `${summary}\n(no process matches; try a shorter filter)`;
      return `${summary}\n${formatTable(shown)}`;
    },
  });
}

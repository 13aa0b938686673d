/**
 * Sampling a process tree from Linux /proc: which processes descend from a pid, and
 * whether any of them used CPU or did I/O since the last look. Used by the bash
 * tool's smart timeout; elsewhere (no /proc) `procAvailable()` is false.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export function procAvailable(): boolean {
  return process.platform === 'linux' && existsSync('/proc/self/stat');
}

interface StatFields {
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks. */
  cpu: number;
}

/** The fields we need from `/proc/<pid>/stat`, or undefined when the process is gone. */
function readStat(pid: number): StatFields | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may contain spaces and parentheses; fields resume after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const num = (i: number): number => Number(fields[i] ?? 0);
  // fields[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14-17.
  return { ppid: num(1), cpu: num(11) + num(12) + num(13) + num(14) };
}

/** rchar + wchar from `/proc/<pid>/io` (all bytes read and written), when readable. */
function readIo(pid: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/io`, 'utf8');
  } catch {
    return undefined;
  }
  let total = 0;
  for (const line of text.split('\n')) {
    const [key, value] = line.split(':');
    if (key === 'rchar' || key === 'wchar') total += Number(value ?? 0);
  }
  return total;
}

/** Children via `/proc/<pid>/task/<tid>/children`; undefined when the kernel lacks that file. */
function childrenFromTasks(pid: number): number[] | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const tid of tasks) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && existsSync(`/proc/${pid}/task/${tid}`)) {
        return undefined;
      }
      continue;
    }
    for (const part of text.split(' ')) if (part.trim() !== '') children.push(Number(part));
  }
  return children;
}

/** Parent → children for every process, by scanning `/proc/*\/stat`. */
function childrenByScan(): Map<number, number[]> {
  const byParent = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = readStat(pid);
    if (stat === undefined) continue;
    const list = byParent.get(stat.ppid) ?? [];
    list.push(pid);
    byParent.set(stat.ppid, list);
  }
  return byParent;
}

let tasksChildrenWork: boolean | undefined;

/** `root` and all its descendants that are still alive. */
export function processTree(root: number): number[] {
  const seen = new Set<number>();
  const queue = [root];
  let scanned: Map<number, number[]> | undefined;
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (seen.has(pid) || !existsSync(`/proc/${pid}`)) continue;
    seen.add(pid);
    let children = tasksChildrenWork === false ? undefined : childrenFromTasks(pid);
    if (children === undefined) {
      tasksChildrenWork = false;
      scanned ??= childrenByScan();
      children = scanned.get(pid) ?? [];
    } else tasksChildrenWork = true;
    queue.push(...children);
  }
  return [...seen];
}

interface Counters {
  cpu: number;
  io: number | undefined;
}

/**
 * Watches a process tree. Each `sample()` reports whether the tree did anything since
 * the previous one: CPU time or I/O grew, or processes started or ended.
 */
export class ActivityMonitor {
  private previous: Map<number, Counters> | undefined;

  constructor(private readonly rootPid: number) {}

  sample(): boolean {
    const current = new Map<number, Counters>();
    for (const pid of processTree(this.rootPid)) {
      const stat = readStat(pid);
      if (stat !== undefined) current.set(pid, { cpu: stat.cpu, io: readIo(pid) });
    }
    const previous = this.previous;
    this.previous = current;
    if (previous === undefined) return true;
    if (previous.size !== current.size) return true;
    for (const [pid, now] of current) {
      const before = previous.get(pid);
      if (before === undefined || now.cpu > before.cpu) return true;
      if (now.io !== undefined && before.io !== undefined && now.io > before.io) return true;
    }
    return false;
  }
}

/**
 * The system family: clock and calendar, machine facts, allow-listed environment
 * variables, notifications, processes and disk space.
 */
import type { Tool } from '../types.js';
import { dateTools } from './system-date.js';
import { diskUsageTool } from './system-disk.js';
import { infoTools } from './system-info.js';
import { notifyTool } from './system-notify.js';
import { resolveSystemOptions, type SystemToolOptions } from './system-options.js';
import { processListTool } from './system-process.js';

export { DEFAULT_ENV_ALLOW, type SystemToolOptions } from './system-options.js';

/** current_time, date_calc, system_info, env_get, notify, process_list, disk_usage. */
export function systemTools(options: SystemToolOptions = {}): Tool[] {
  const opts = resolveSystemOptions(options);
  return [
    ...dateTools(opts),
    ...infoTools(opts),
    notifyTool(opts),
    processListTool(opts),
    diskUsageTool(opts),
  ];
}

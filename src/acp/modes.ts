/** Tea's permission modes offered as ACP session modes (the editor's mode picker). */
import { RequestError, type SessionModeState } from '@agentclientprotocol/sdk';
import { PERMISSION_MODES } from '../runtime/permissions.js';
import type { PermissionMode } from '../tools/permissions.js';

const MODE_INFO: Record<PermissionMode, { name: string; description: string }> = {
  'read-only': { name: 'Read only', description: 'Reads run; writes and commands are refused' },
  ask: { name: 'Ask', description: 'Writes, commands and network calls ask for approval' },
  'auto-edit': { name: 'Auto edit', description: 'Workspace edits run; commands and network calls ask' },
  yolo: { name: 'Yolo', description: 'Every tool runs without asking' },
};

export function modeState(current: PermissionMode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: PERMISSION_MODES.map((id) => ({ id, ...MODE_INFO[id] })),
  };
}

/** Checks a mode id from the client; a clear error lists the valid ones. */
export function parseMode(id: string): PermissionMode {
  if ((PERMISSION_MODES as readonly string[]).includes(id)) return id as PermissionMode;
  throw RequestError.invalidParams(
    { modeId: id, availableModes: PERMISSION_MODES },
    `unknown mode ${JSON.stringify(id)}: use one of ${PERMISSION_MODES.join(', ')}`,
  );
}

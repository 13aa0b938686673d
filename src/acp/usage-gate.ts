/**
 * Whether a client is sent `usage_update` (context used, window size, cost).
 *
 * ACP v1 has no capability for it: `usage_update` joined the session-update union
 * after clients were written that parse that union strictly and reject (or log an
 * error for) any kind they do not know. The protocol version is 1 for both, so Tea
 * decides from what the client says about itself:
 *
 * 1. `clientCapabilities._meta.usageUpdate` (boolean): the client's own word wins.
 * 2. Else a client that sends `clientInfo` gets them: `clientInfo` came to the
 *    protocol (October 2025) before `usage_update` did, so a client without it
 *    predates usage updates, and one with it is taken to be new enough (the ACP SDK
 *    clients that send it, acpx among them, parse them).
 * 3. Else (no `clientInfo`: an older client) none are sent.
 *
 * `tea acp --usage-updates on|off` overrides the choice for every client.
 */
import type { InitializeRequest } from '@agentclientprotocol/sdk';

export type UsageUpdatesSetting = 'auto' | 'on' | 'off';

export const USAGE_UPDATE_SETTINGS: readonly UsageUpdatesSetting[] = ['auto', 'on', 'off'];

/** The `_meta` key a client sets in `clientCapabilities` to ask for (true) or refuse (false) usage updates. */
export const USAGE_META_KEY = 'usageUpdate';

export function sendsUsageUpdates(params: InitializeRequest, setting: UsageUpdatesSetting = 'auto'): boolean {
  if (setting === 'on') return true;
  if (setting === 'off') return false;
  const flag = params.clientCapabilities?._meta?.[USAGE_META_KEY];
  if (typeof flag === 'boolean') return flag;
  return params.clientInfo != null;
}

/**
 * Which `session/update` kinds a client is sent. The first ACP v1 clients parse the
 * update union strictly and reject (or log an error for) any kind they do not know;
 * `usage_update` (context used, window size, cost), `config_option_update` and
 * `session_info_update` came to v1 later, and ACP v1 has no capability for them (the
 * protocol version is 1 for old and new clients alike). So Tea decides from what the
 * client says about itself:
 *
 * 1. `clientCapabilities._meta.usageUpdate` (boolean): the client's own word on
 *    usage updates; true also marks it as one that knows the other later kinds.
 * 2. Else a client that sends `clientInfo` gets them all: `clientInfo` came to the
 *    protocol (October 2025) before these updates did, so a client without it
 *    predates them, and one with it is taken to be new enough (the ACP SDK clients
 *    that send it, acpx among them, parse them).
 * 3. Else (no `clientInfo`: an older client) none of them are sent.
 *
 * `tea acp --usage-updates on|off` overrides the choice about usage updates for every client.
 */
import type { InitializeRequest, SessionUpdate } from '@agentclientprotocol/sdk';

export type UsageUpdatesSetting = 'auto' | 'on' | 'off';

export const USAGE_UPDATE_SETTINGS: readonly UsageUpdatesSetting[] = ['auto', 'on', 'off'];

/** The `_meta` key a client sets in `clientCapabilities` to ask for (true) or refuse (false) usage updates. */
export const USAGE_META_KEY = 'usageUpdate';

/** What one client is sent of the update kinds v1 gained after its first clients. */
export interface UpdateGate {
  usage: boolean;
  /** `config_option_update` and `session_info_update`. */
  later: boolean;
}

const LATER_KINDS: ReadonlySet<string> = new Set(['config_option_update', 'session_info_update']);

export function updateGate(params: InitializeRequest, setting: UsageUpdatesSetting = 'auto'): UpdateGate {
  const flag = params.clientCapabilities?._meta?.[USAGE_META_KEY];
  const later = params.clientInfo != null || flag === true;
  const usage =
    setting === 'on' ? true : setting === 'off' ? false : typeof flag === 'boolean' ? flag : later;
  return { usage, later };
}

/** Whether an update of this kind may go to the client. */
export function allows(gate: UpdateGate, kind: SessionUpdate['sessionUpdate']): boolean {
  if (kind === 'usage_update') return gate.usage;
  return LATER_KINDS.has(kind) ? gate.later : true;
}

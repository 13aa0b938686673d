/** User tools on disk, for the faces (`tea tools user list|show|rm`); see tools/user/. */
export { USER_CATEGORY } from '../tools/user/info.js';
export type { UserToolManifest, VersionEntry } from '../tools/user/manifest.js';
export { compareVersions, UserToolStore } from '../tools/user/store.js';

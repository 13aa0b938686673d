/** Long-term memory as faces see it: its shapes, categories, file import and dates. */
export { isoDate } from '../memory/format.js';
export { readMemoryFile } from '../memory/import-file.js';
export type { MemorySearchHit, RememberResult } from '../memory/service.js';
export { CATEGORIES, type Category, type Memory, type Priority } from '../memory/types.js';
export { StoreError } from '../store/errors.js';

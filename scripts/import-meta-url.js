// Injected into the CommonJS bundle by scripts/build.mjs: what `import.meta.url` is
// in the sources (the bundle's own file URL; src/ finds package files relative to it).
import { pathToFileURL } from 'node:url';

export const import_meta_url = pathToFileURL(__filename).href;

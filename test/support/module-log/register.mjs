// `node --import <this file>`: appends the file URL of every module under src/memory/ (or
// matching TEA_MODULE_LOG_MATCH, a regular expression) the process loads, one a line, to
// the file named by TEA_MODULE_LOG (see hooks.mjs).
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url), {
  data: { log: process.env.TEA_MODULE_LOG, match: process.env.TEA_MODULE_LOG_MATCH },
});

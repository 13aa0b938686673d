// `node --import <this file>`: appends the file URL of every module under src/memory/ the
// process loads, one a line, to the file named by TEA_MODULE_LOG (see hooks.mjs).
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url), { data: { log: process.env.TEA_MODULE_LOG } });

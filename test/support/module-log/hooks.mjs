// Module hooks (run by register.mjs): each src/memory/ module is logged as it loads,
// before it is evaluated, so a reader of the log sees every one loaded so far.
import { appendFileSync } from 'node:fs';

let log;

export function initialize(data) {
  log = data?.log;
}

export async function load(url, context, next) {
  if (log && /\/src\/memory\//.test(url)) appendFileSync(log, `${url.replace(/^.*\/src\//, '')}\n`);
  return next(url, context);
}

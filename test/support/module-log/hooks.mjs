// Module hooks (run by register.mjs): each module whose URL matches the pattern (default:
// src/memory/) is logged as it loads, before it is evaluated, so a reader of the log sees
// every one loaded so far.
import { appendFileSync } from 'node:fs';

let log;
let match = /\/src\/memory\//;

export function initialize(data) {
  log = data?.log;
  if (data?.match) match = new RegExp(data.match);
}

export async function load(url, context, next) {
  if (log && match.test(url)) appendFileSync(log, `${url.replace(/^.*\/src\//, '')}\n`);
  return next(url, context);
}

/**
 * Test-only "browser" for OAuth logins (TEA_BROWSER="node headless-browser.mjs"): loads the
 * authorization URL and follows its redirects (the test authorization servers approve at
 * once), which lands on Tea's loopback callback. Writes each hop to $HEADLESS_BROWSER_LOG.
 */
import { appendFileSync } from 'node:fs';

let url = process.argv[2];
const log = (line) =>
  process.env.HEADLESS_BROWSER_LOG && appendFileSync(process.env.HEADLESS_BROWSER_LOG, `${line}\n`);
for (let hop = 0; hop < 10 && url; hop++) {
  const response = await fetch(url, { redirect: 'manual' });
  log(`${response.status} ${url}`);
  const next = response.headers.get('location');
  await response.text();
  url = next ? new URL(next, url).href : undefined;
}

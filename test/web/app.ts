/**
 * One headless browser and one real `tea serve` for the tests of a file: started
 * before them, closed after them; with `resetModel`, the scripted model forgets its
 * script and recorded requests before each test.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { launchBrowser } from './browser.js';
import { startTeaServer, type TeaServer, type TeaServerOptions } from './serve.js';

export interface WebApp {
  browser: Browser;
  srv: TeaServer;
}

export function useWebApp(
  args: string[] = [],
  opts: TeaServerOptions & { resetModel?: boolean } = {},
): WebApp {
  const { resetModel, ...serverOpts } = opts;
  const app = {} as WebApp;
  beforeAll(async () => {
    [app.browser, app.srv] = await Promise.all([launchBrowser(), startTeaServer(args, serverOpts)]);
  });
  afterAll(async () => {
    await app.browser?.close();
    await app.srv?.close();
  });
  if (resetModel) beforeEach(() => app.srv.model.reset());
  return app;
}

/** One scripted model server for a test file: started before its tests, closed after them. */
import { afterAll, beforeAll } from 'vitest';
import { type ModelServer, startModelServer } from './model-server.js';

/** The file's server (call it inside tests: it exists once `beforeAll` has run). */
export function useModelServer(): () => ModelServer {
  let server: ModelServer | undefined;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  return () => {
    if (!server) throw new Error('useModelServer: the server starts in beforeAll');
    return server;
  };
}

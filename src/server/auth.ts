/** Bearer-token auth (every route but `/health`) and the loopback check for bind addresses. */
import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { apiError } from './errors.js';

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Requires `Authorization: Bearer <token>`. Event-stream routes also accept
 * `?token=` because EventSource cannot set headers.
 */
export function bearerAuth(token: string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.path === '/health') return next();
    const header = c.req.header('authorization');
    let given: string | undefined;
    if (header !== undefined) {
      const m = /^Bearer\s+(.+)$/i.exec(header.trim());
      if (!m)
        throw apiError(401, 'malformed Authorization header: expected "Bearer <token>"', {
          code: 'invalid_api_key',
        });
      given = m[1]!.trim();
    } else if (c.req.path.endsWith('/events')) {
      given = c.req.query('token');
    }
    if (given === undefined) {
      throw apiError(401, 'missing API token: send "Authorization: Bearer <TEA_API_TOKEN>"', {
        code: 'missing_api_key',
      });
    }
    if (!sameToken(given, token)) throw apiError(401, 'invalid API token', { code: 'invalid_api_key' });
    return next();
  };
}

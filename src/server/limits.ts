/** Request body size limit (413) and a per-client token-bucket rate limit (429 + retry-after). */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { type ApiError, apiError, errorResponse } from './errors.js';
import type { RateLimitOptions } from './types.js';

/** The 413 for a body over `maxBytes`. */
export function tooLarge(maxBytes: number): ApiError {
  return apiError(413, `request body is larger than the limit of ${maxBytes} bytes`, {
    code: 'request_too_large',
  });
}

/**
 * 413 for a body over `maxBytes`, counted as it streams in (a declared length over
 * the limit is refused by the HTTP server before the app; see http.ts).
 */
export function sizeLimit(maxBytes: number): MiddlewareHandler {
  return bodyLimit({ maxSize: maxBytes, onError: (c) => errorResponse(c, tooLarge(maxBytes)) });
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets per key; `take` answers how long to wait (0 = allowed). */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly capacity: number;
  private readonly perMs: number;

  constructor(
    opts: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {
    if (!(opts.perMinute > 0)) throw new Error(`rate limit must be positive, got ${opts.perMinute}`);
    this.capacity = opts.burst ?? opts.perMinute;
    this.perMs = opts.perMinute / 60_000;
  }

  /** Takes one token for `key`; returns 0 when allowed, else milliseconds until one is free. */
  take(key: string): number {
    const now = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    b.tokens = Math.min(this.capacity, b.tokens + (now - b.at) * this.perMs);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    if (this.buckets.size > 10_000) this.prune(now);
    return Math.ceil((1 - b.tokens) / this.perMs);
  }

  /** Forgets full buckets (clients that went quiet). */
  private prune(now: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + (now - b.at) * this.perMs >= this.capacity) this.buckets.delete(key);
    }
  }
}

export function rateLimit(opts: RateLimitOptions): MiddlewareHandler {
  const buckets = new TokenBuckets(opts);
  return async (c, next) => {
    if (c.req.path === '/health') return next();
    let key = 'unknown';
    try {
      key = getConnInfo(c).remote.address ?? 'unknown';
    } catch {
      // not behind the node adapter (app.request in tests): one shared bucket
    }
    const waitMs = buckets.take(key);
    if (waitMs > 0) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw apiError(429, `rate limit exceeded: retry in ${seconds} s`, {
        code: 'rate_limit_exceeded',
        headers: { 'retry-after': String(seconds) },
      });
    }
    return next();
  };
}

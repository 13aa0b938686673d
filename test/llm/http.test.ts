import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/llm/errors.js';
import { abortError, errorMessageOf, parseRetryAfter, redact } from '../../src/llm/http.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads seconds, fractional seconds and milliseconds; retry-after-ms wins', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': '3', 'retry-after-ms': '120' }), now)).toBe(120);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:07 GMT' }), now)).toBe(7000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }), now)).toBe(0);
  });

  it('is undefined when absent or unreadable', () => {
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': 'x' }), now)).toBeUndefined();
  });
});

describe('errorMessageOf', () => {
  it('finds the message in the usual error shapes', () => {
    expect(errorMessageOf('{"error":{"message":"bad key"}}')).toBe('bad key');
    expect(errorMessageOf('{"type":"error","error":{"type":"x","message":"overloaded"}}')).toBe('overloaded');
    expect(errorMessageOf('{"error":"model not found"}')).toBe('model not found');
    expect(errorMessageOf('{"detail":"Not Found"}')).toBe('Not Found');
  });

  it('falls back to the collapsed text, truncated, or says the body was empty', () => {
    expect(errorMessageOf('<html>\n  <b>502</b>\n</html>')).toBe('<html> <b>502</b> </html>');
    expect(errorMessageOf('x'.repeat(2000)).length).toBeLessThan(600);
    expect(errorMessageOf('  ')).toBe('(empty response body)');
  });
});

describe('redact and abortError', () => {
  it('masks every occurrence of a secret', () => {
    expect(redact('key sk-123456 and sk-123456 again', ['sk-123456'])).toBe('key *** and *** again');
  });

  it('turns an abort reason into the right LlmError', () => {
    const ctx = (reason: unknown) => {
      const ctrl = new AbortController();
      ctrl.abort(reason);
      return { profile: 'p', signal: ctrl.signal, secrets: [] };
    };
    const own = new LlmError('timeout', 'idle');
    expect(abortError(ctx(own))).toBe(own);
    expect(abortError(ctx(new DOMException('t', 'TimeoutError'))).kind).toBe('timeout');
    expect(abortError(ctx(undefined)).kind).toBe('aborted');
  });
});

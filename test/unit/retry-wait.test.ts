// How long a retry waits (src/remote/failures.ts): the backoff with full jitter, and a Retry-After. Requests refused
// together are told the same Retry-After; after a 429 the limiter spaces them (test/e2e/rate-limits.test.ts), after
// any other refusal the backoff's jitter is added to it, so that they do not all come back at the same instant.
import { describe, expect, it } from 'vitest';
import { retryWait } from '../../src/remote/failures.js';

const opts = { backoffMs: 200 };
const draw = (x: number) => () => x;

describe('the wait before a retry', () => {
  it.each<[string, number, number, number | undefined, number, number]>([
    ['no Retry-After: the backoff, none drawn', 1, 503, undefined, 0, 0],
    ['no Retry-After: the backoff, the most drawn at the first retry', 1, 503, undefined, 1, 200],
    ['no Retry-After: the backoff doubles with each attempt', 3, 0, undefined, 0.5, 400],
    ['a 503 Retry-After is the least wait', 1, 503, 1000, 0, 1000],
    ['a 503 Retry-After, jitter drawn on top', 1, 503, 1000, 0.5, 1100],
    ['a 502 Retry-After at the third attempt, jitter drawn on top', 3, 502, 1000, 0.25, 1200],
    ['a 429 Retry-After as it is: the limiter spaces the requests it refused together', 2, 429, 1000, 0.9, 1000],
    ['a 429 without Retry-After: the backoff', 2, 429, undefined, 0.5, 200],
  ])('%s', (_, attempt, status, retryAfter, drawn, wait) =>
    expect(retryWait(opts, attempt, status, retryAfter, draw(drawn))).toBe(wait),
  );

  it('two requests told the same Retry-After after a 503 do not wait the same time', () => {
    const waits = [0.1, 0.7].map((x) => retryWait(opts, 1, 503, 1000, draw(x)));
    expect(waits[0]).not.toBe(waits[1]);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(1000);
  });
});

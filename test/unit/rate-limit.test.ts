// The emulator's rate limits (--rate-limit) on a clock the test moves: token buckets of RPS tokens, refilled RPS a
// second, one for every request and one per path prefix, and the headers that tell the client.
import { describe, expect, it } from 'vitest';
import {
  parseRateRule,
  parseRateRules,
  RateLimits,
  TokenBucket,
  type RateRule,
} from '../../src/emulator/rate-limit.js';

describe('--rate-limit values', () => {
  it.each([
    ['200', { prefix: '', rps: 200 }],
    ['/cms/=50', { prefix: '/cms/', rps: 50 }],
    ['/a=b/=3', { prefix: '/a=b/', rps: 3 }],
  ])('%s', (raw, rule) => expect(parseRateRule(raw)).toEqual(rule));

  it.each([
    ['-1', /whole number of requests per second from 1 to 1000000, not "-1"/],
    ['0', /not "0"/],
    ['1.5', /not "1.5"/],
    ['abc', /not "abc"/],
    ['', /not ""/],
    ['/cms/=', /not "\/cms\/="/],
    ['cms=5', /the prefix starting with \//],
    ['=5', /the prefix starting with \//],
  ])('%j is refused', (raw, message) => expect(() => parseRateRule(raw)).toThrow(message));

  it('one limit per prefix', () => {
    expect(() => parseRateRules(['5', '/cms/=1', '6'])).toThrow('--rate-limit for every request is given twice');
    expect(() => parseRateRules(['/cms/=1', '/cms/=2'])).toThrow('--rate-limit /cms/ is given twice');
  });
});

describe('a token bucket', () => {
  it('holds RPS tokens at most and refills RPS a second', () => {
    const b = new TokenBucket(4, 0);
    expect([b.take(0), b.take(0), b.take(0), b.take(0), b.take(0)]).toEqual([true, true, true, true, false]);
    expect(b.msUntilToken(0)).toBe(250);
    expect(b.take(249)).toBe(false);
    expect(b.take(250)).toBe(true);
    expect(b.msUntilFull(250)).toBe(1000);
    expect(b.remaining(10_000)).toBe(4); // never more than a second's worth
  });
});

type Step = [at: number, path: string, admitted: boolean, headers: Record<string, string>];
const h = (limit: number, remaining: number, reset: number, retryAfter?: number) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(reset),
  ...(retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }),
});

describe('the limits of a request', () => {
  it.each<[string, RateRule[], Step[]]>([
    [
      'one limit for every request: a burst of RPS, then RPS a second; a refusal takes no token',
      [{ prefix: '', rps: 2 }],
      [
        [0, '/cms/banners/v1/b1', true, h(2, 1, 1)],
        [0, '/streaming/vods/v1/v1', true, h(2, 0, 1)],
        [0, '/cms/banners/v1/b1', false, h(2, 0, 1, 1)],
        [499, '/cms/banners/v1/b1', false, h(2, 0, 1, 1)],
        [500, '/cms/banners/v1/b1', true, h(2, 0, 1)],
        [2000, '/cms/banners/v1/b1', true, h(2, 1, 1)],
      ],
    ],
    [
      'a limit per prefix: paths outside it are not limited (and get no headers)',
      [{ prefix: '/cms/', rps: 1 }],
      [
        [0, '/cms/events/v1', true, h(1, 0, 1)],
        [0, '/cms/banners/v1/b1', false, h(1, 0, 1, 1)],
        [0, '/streaming/vods/v1/v1', true, {}],
        [1000, '/cms/banners/v1/b1', true, h(1, 0, 1)],
      ],
    ],
    [
      'both: a request needs a token of each; the headers are the bucket with fewest left',
      [
        { prefix: '', rps: 10 },
        { prefix: '/cms/', rps: 2 },
      ],
      [
        [0, '/cms/events/v1', true, h(2, 1, 1)],
        [0, '/cms/events/v1', true, h(2, 0, 1)],
        [0, '/cms/events/v1', false, h(2, 0, 1, 1)],
        [0, '/streaming/vods/v1/v1', true, h(10, 7, 1)],
        [0, '/streaming/vods/v1/v1', true, h(10, 6, 1)],
      ],
    ],
    [
      'a slow limit: Retry-After and the reset count whole seconds, rounded up',
      [{ prefix: '', rps: 1 }],
      [
        [0, '/x', true, h(1, 0, 1)],
        [1, '/x', false, h(1, 0, 1, 1)],
        [999, '/x', false, h(1, 0, 1, 1)],
        [1000, '/x', true, h(1, 0, 1)],
      ],
    ],
  ])('%s', (_, rules, steps) => {
    let now = 0;
    const limits = new RateLimits(rules, () => now);
    const seen = steps.map(([at, path]) => {
      now = at;
      const { admitted, headers } = limits.admit(path);
      return [at, path, admitted, headers];
    });
    expect(seen).toEqual(steps);
  });
});

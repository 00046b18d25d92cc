// When a request may start (src/remote/limiter.ts, quota.ts): the rate-limit headers as read, the window of
// requests on the wire (AIMD), the pause a 429 asks for, pacing to what the headers say, --max-rps. Timers and
// clocks are faked: time moves only when the test moves it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Limiter, NotStarted, type Ticket } from '../../src/remote/limiter.js';
import { familyOf, readRateHeaders, retryAfterMs } from '../../src/remote/quota.js';

/** X-RateLimit headers */
const told = (limit: number, remaining: number, reset?: number) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  ...(reset === undefined ? {} : { 'x-ratelimit-reset': String(reset) }),
});

describe('rate-limit headers', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  it.each([
    ['limit, remaining, reset in seconds', told(200, 37, 1), { limit: 200, remaining: 37, resetMs: 1000 }],
    [
      'a reset with a fraction',
      { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0.25' },
      { limit: 10, remaining: 0, resetMs: 250 },
    ],
    [
      'a reset that is a time (epoch seconds)',
      { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': String(now / 1000 + 60) },
      { limit: 5000, remaining: 4999, resetMs: 60_000 },
    ],
    [
      'a reset that is a time in milliseconds',
      { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': String(now + 1500) },
      { limit: 10, remaining: 1, resetMs: 1500 },
    ],
    [
      'a reset in the past is no reset',
      { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': String(now / 1000 - 60) },
      { limit: 5, remaining: 1 },
    ],
    ['no reset', told(5, 1), { limit: 5, remaining: 1 }],
    ['more remaining than the limit is the limit', told(5, 9), { limit: 5, remaining: 5 }],
    [
      'a header sent twice: the first',
      { 'x-ratelimit-limit': ['5', '50'], 'x-ratelimit-remaining': '2' },
      { limit: 5, remaining: 2 },
    ],
    ['no headers', {}, undefined],
    ['a limit without remaining', { 'x-ratelimit-limit': '5' }, undefined],
    ['a limit of 0', told(0, 0), undefined],
    ['not numbers', { 'x-ratelimit-limit': 'many', 'x-ratelimit-remaining': '-1' }, undefined],
  ])('%s', (_, headers, expected) => expect(readRateHeaders(headers, now)).toEqual(expected));

  it.each([
    ['seconds', '2', 2000],
    ['zero', '0', 0],
    ['an HTTP date', 'Tue, 24 Nov 2026 12:00:03 GMT', 3000],
    ['a date in the past: at once', 'Tue, 24 Nov 2026 11:00:00 GMT', 0],
    ['longer than the cap: the cap', '86400', 120_000],
    ['not a time', 'soon', undefined],
    ['absent', undefined, undefined],
  ])('Retry-After %s', (_, value, ms) =>
    expect(retryAfterMs(value === undefined ? {} : { 'retry-after': value }, 120_000, now)).toBe(ms),
  );

  it.each([
    ['/cms/banners/v1/b1', '/cms/banners'],
    ['/cms/banners/v1', '/cms/banners'],
    ['/cms/types?x=1', '/cms/types'],
    ['/cms?x=/y/z', '/cms'],
    ['/iam/auth/v1/policies/o/organization', '/iam/auth'],
  ])('the endpoint family of %s is %s', (path, family) => expect(familyOf(path)).toBe(family));
});

describe('the limiter', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  const ok = { status: 200, headers: {} };
  const tooMany = (retryAfterMs?: number, headers = {}) => ({ status: 429, headers, retryAfterMs });
  /** Whether each of these has started (a promise of a ticket settles only when the limiter lets it start). */
  const started = async (pending: (Ticket | Promise<Ticket>)[]) => {
    const seen = pending.map(() => false);
    pending.forEach(
      (p, i) =>
        void Promise.resolve(p).then(
          () => {
            seen[i] = true;
          },
          () => {},
        ),
    );
    await vi.advanceTimersByTimeAsync(0);
    return seen;
  };
  const sync = (t: Ticket | Promise<Ticket>) => {
    if (t instanceof Promise) throw new Error('expected to start at once');
    return t;
  };

  it('keeps --concurrency requests on the wire; one more starts when one is answered', async () => {
    const l = new Limiter({ concurrency: 2 });
    const [a] = [sync(l.acquire('/a/b')), sync(l.acquire('/a/b'))];
    const third = l.acquire('/a/b');
    expect(await started([third])).toEqual([false]);
    l.settle(a, ok);
    expect(await started([third])).toEqual([true]);
  });

  it('halves the window on a 429 (once for requests that were on the wire together), grows it by one per window of answers', () => {
    const l = new Limiter({ concurrency: 8 });
    const first = Array.from({ length: 8 }, () => sync(l.acquire('/a/b')));
    for (const t of first) l.settle(t, tooMany());
    expect(l.window).toBe(4);
    const second = Array.from({ length: 4 }, () => sync(l.acquire('/a/b')));
    l.settle(second[0], tooMany());
    expect(l.window).toBe(2);
    const windows = [];
    for (const t of second.slice(1)) {
      l.settle(t, ok);
      windows.push(l.window);
    }
    // 2 answers: 3; then 3 more are needed for 4.
    expect(windows).toEqual([2, 3, 3]);
    for (let i = 0; i < 40; i++) l.settle(sync(l.acquire('/a/b')), ok);
    expect(l.window).toBe(8);
  });

  it('a 429 naming no limit holds back every request for its Retry-After', async () => {
    const l = new Limiter({ concurrency: 8 });
    l.settle(sync(l.acquire('/a/b')), tooMany(1000));
    const next = [l.acquire('/a/b'), l.acquire('/c/d')];
    await vi.advanceTimersByTimeAsync(999);
    expect(await started(next)).toEqual([false, false]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await started(next)).toEqual([true, true]);
  });

  it('a 429 naming its limit holds back only the requests of that limit', async () => {
    const l = new Limiter({ concurrency: 8 });
    l.settle(sync(l.acquire('/streaming/vods')), { status: 200, headers: told(1000, 900) });
    l.settle(sync(l.acquire('/cms/banners')), tooMany(1000, told(100, 0)));
    const next = [l.acquire('/cms/banners'), l.acquire('/streaming/vods')];
    expect(await started(next)).toEqual([false, true]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await started(next)).toEqual([true, true]);
    // An endpoint not heard from yet might be under that limit too: it waits with it.
    l.settle(await next[0], tooMany(1000, told(100, 0)));
    expect(await started([l.acquire('/cms/events')])).toEqual([false]);
  });

  it('paces to the remaining count and the limit the platform sends, before it has to refuse', async () => {
    const l = new Limiter({ concurrency: 8 });
    // 2 a second, none left: the next may start once half a second has refilled one, the one after that at 1 s.
    l.settle(sync(l.acquire('/a/b')), { status: 200, headers: told(2, 0, 1) });
    const next = [l.acquire('/a/b'), l.acquire('/a/b')];
    await vi.advanceTimersByTimeAsync(499);
    expect(await started(next)).toEqual([false, false]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await started(next)).toEqual([true, false]);
    await vi.advanceTimersByTimeAsync(500);
    expect(await started(next)).toEqual([true, true]);
  });

  it('paced at the limit, it goes on at the limit: the allowance refills up to the limit, not once', async () => {
    const l = new Limiter({ concurrency: 8 });
    l.settle(sync(l.acquire('/a/b')), { status: 200, headers: told(10, 9) });
    let startedAtOnce = 0;
    for (let i = 0; i < 50; i++) {
      await vi.advanceTimersByTimeAsync(100);
      const t = l.acquire('/a/b');
      if (!(t instanceof Promise)) startedAtOnce++;
      l.settle(await t, ok);
    }
    expect(startedAtOnce).toBe(50);
  });

  it('counts no refill for requests still on the wire: the platform, full until they arrive, takes none for them', async () => {
    const l = new Limiter({ concurrency: 16 });
    l.settle(sync(l.acquire('/a/b')), { status: 200, headers: told(10, 9) });
    for (let i = 0; i < 9; i++) sync(l.acquire('/a/b'));
    await vi.advanceTimersByTimeAsync(2000);
    // Refilled for two seconds, but nine may still arrive at a bucket of ten: room for one.
    expect(await started([l.acquire('/a/b'), l.acquire('/a/b'), l.acquire('/a/b')])).toEqual([true, false, false]);
  });

  it('counts requests on the wire when it read the remaining count as spent', async () => {
    const l = new Limiter({ concurrency: 8 });
    const [a] = [sync(l.acquire('/a/b')), sync(l.acquire('/a/b')), sync(l.acquire('/a/b'))];
    // 3 left when the first was answered, but two more were on the wire: they may not have been counted yet.
    l.settle(a, { status: 200, headers: told(10, 3) });
    expect(await started([l.acquire('/a/b'), l.acquire('/a/b')])).toEqual([true, false]);
  });

  it('--max-rps: a request counts from its start until a second after its answer', async () => {
    const l = new Limiter({ concurrency: 8, maxRps: 3 });
    const first = [sync(l.acquire('/a/b')), sync(l.acquire('/a/b')), sync(l.acquire('/a/b'))];
    const fourth = l.acquire('/a/b');
    await vi.advanceTimersByTimeAsync(100);
    for (const t of first) l.settle(t, ok);
    expect(await started([fourth])).toEqual([false]);
    await vi.advanceTimersByTimeAsync(999);
    expect(await started([fourth])).toEqual([false]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await started([fourth])).toEqual([true]);
  });

  it('a request still waiting when the run is out of time is refused, never sent', async () => {
    const l = new Limiter({ concurrency: 1 });
    sync(l.acquire('/a/b'));
    const failure = Promise.resolve(l.acquire('/a/b')).catch((e: unknown) => e);
    l.abandonWaiting();
    expect(await failure).toBeInstanceOf(NotStarted);
  });
});

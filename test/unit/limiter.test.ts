// When a request may start (src/remote/limiter.ts): the Retry-After header as read, the endpoint family of a path,
// the window of requests on the wire (AIMD), the pause a 429 asks for, --max-rps. Timers and clocks are faked: time
// moves only when the test moves it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Limiter, NotStarted, type Ticket } from '../../src/remote/limiter.js';
import { familyOf } from '../../src/remote/endpoint-rates.js';
import { retryAfterMs } from '../../src/remote/retry-after.js';

describe('the answer headers', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
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

  const ok = { status: 200 };
  const tooMany = (retryAfterMs?: number) => ({ status: 429, retryAfterMs });
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

  it('a 429 holds back every request for its Retry-After', async () => {
    const l = new Limiter({ concurrency: 8 });
    l.settle(sync(l.acquire('/a/b')), tooMany(1000));
    const next = [l.acquire('/a/b'), l.acquire('/c/d')];
    await vi.advanceTimersByTimeAsync(999);
    expect(await started(next)).toEqual([false, false]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await started(next)).toEqual([true, true]);
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

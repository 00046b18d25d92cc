// The rate learnt from 429s that name no limit (src/remote/pace.ts), and the limiter pacing starts to it. Time is
// given explicitly to the rate, and faked for the limiter: it moves only when the test moves it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Limiter, type Ticket } from '../../src/remote/limiter.js';
import { EndpointRates } from '../../src/remote/endpoint-rates.js';
import { FLOOR, GROWTH, LearntRate, RATE_SHARE } from '../../src/remote/pace.js';

/** `n` accepted answers, evenly after `from` up to `to` ms */
const accepted = (n: number, from: number, to: number): Event[] =>
  Array.from({ length: n }, (_, i) => ['ok', from + ((to - from) * (i + 1)) / n]);
type Event = ['ok', number] | ['429', number, number];

describe('the rate learnt from 429s', () => {
  // A bucket full at the start: 300 accepted in its first half second, the first 429; then 100 in the next second.
  const burst: Event[] = [...accepted(300, 0, 500), ['429', 500, 490]];
  it.each<[string, Event[], number | undefined]>([
    ['nothing refused: no rate', accepted(50, 0, 1000), undefined],
    ['the first 429 only starts the measure (what came before it holds the first burst)', burst, undefined],
    [
      'the next 429: what was accepted between the two',
      [...burst, ...accepted(100, 500, 1500), ['429', 1500, 1490]],
      100 * RATE_SHARE,
    ],
    [
      'the time between includes a pause: a bucket empty at both 429s refilled over all of it',
      [...burst, ...accepted(60, 1500, 2000), ['429', 2000, 1990]],
      (60 / 1.5) * RATE_SHARE,
    ],
    [
      'too few answers between to tell: no rate (the window and the pause do)',
      [...burst, ...accepted(2, 500, 1500), ['429', 1500, 1490]],
      undefined,
    ],
    [
      'a 429 to a request started before the last one is news already acted on',
      [...burst, ...accepted(100, 500, 1500), ['429', 1500, 1490], ['429', 1800, 1495]],
      100 * RATE_SHARE,
    ],
    [
      'a 429 too soon after the last one measures too little: nothing changes',
      [...burst, ...accepted(100, 500, 1500), ['429', 1500, 1490], ['429', 1600, 1550]],
      100 * RATE_SHARE,
    ],
    [
      'each accepted answer after the cut grows the rate a little',
      [...burst, ...accepted(100, 500, 1500), ['429', 1500, 1490], ...accepted(100, 1500, 1600)],
      100 * RATE_SHARE * (1 + GROWTH) ** 100,
    ],
    [
      'a lower rate measured next: paced to it',
      [...burst, ...accepted(100, 500, 1500), ['429', 1500, 1490], ...accepted(90, 1500, 2500), ['429', 2500, 2490]],
      90 * RATE_SHARE,
    ],
    [
      '429s that come however slowly we send: never below a share of the highest rate measured',
      [...burst, ...accepted(100, 500, 1500), ['429', 1500, 1490], ...accepted(40, 1500, 2500), ['429', 2500, 2490]],
      100 * FLOOR * RATE_SHARE,
    ],
  ])('%s', (_, events, rate) => {
    const r = new LearntRate();
    for (const e of events) {
      if (e[0] === 'ok') r.accepted(e[1]);
      else r.refused(e[1], e[2]);
    }
    if (rate === undefined) expect(r.rate).toBeUndefined();
    else expect(r.rate).toBeCloseTo(rate, 6);
  });

  it.each([
    ['no rate: at once', undefined, 0, 0],
    ["right after the cut: nothing saved up, one start's worth of time", 20, 0, 50],
    ['part refilled', 20, 30, 20],
    ['refilled', 20, 50, 0],
  ])('the wait: %s', (_, rate, after, wait) => {
    const r = new LearntRate();
    if (rate !== undefined) {
      for (const e of [...accepted(10, 0, 500), ['429', 500, 490], ...accepted(rate, 500, 1500)] as Event[]) {
        if (e[0] === 'ok') r.accepted(e[1]);
        else r.refused(e[1], e[2]);
      }
      r.refused(1500, 1490);
      r.rate = rate; // a round rate for round waits
    }
    expect(r.waitMs(1500 + after)).toBeCloseTo(wait, 6);
  });
});

describe('the limiter, paced by the learnt rate', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  const ok = { status: 200 };
  /** Runs `n` requests through `l`, each answered `ok` as it starts; returns when each started (ms from now). */
  const startTimes = async (l: Limiter, n: number, ms: number) => {
    const t0 = performance.now();
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      void Promise.resolve(l.acquire('/a/b')).then((t: Ticket) => {
        times.push(performance.now() - t0);
        l.settle(t, ok);
      });
    }
    await vi.advanceTimersByTimeAsync(ms);
    return times;
  };

  it('after a 429 naming no limit, starts no faster than the rate accepted before it', async () => {
    const l = new Limiter({ concurrency: 16 });
    // The first 429 starts the measure; 20 accepted in the second to the next.
    l.settle(await l.acquire('/a/b'), { status: 429 });
    for (let i = 0; i < 20; i++) {
      await vi.advanceTimersByTimeAsync(50);
      l.settle(await l.acquire('/a/b'), ok);
    }
    l.settle(await l.acquire('/a/b'), { status: 429 });
    expect(l.learnt.rate).toBeCloseTo(20 * RATE_SHARE, 6);
    // 19 a second: one start every 1000/19 ms, none at once (the platform just refused: nothing saved up); the
    // timer's whole milliseconds make the 19th a few late.
    const times = await startTimes(l, 30, 1010);
    expect(times).toHaveLength(19);
    expect(times[0]).toBeGreaterThanOrEqual(1000 / 19 - 1);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(1000 / 19 - 1);
  });

  it("a 429 to an endpoint family's own limit holds back that family alone: the run's rate, window and pause are not the family's", async () => {
    const l = new Limiter({ concurrency: 16 });
    // The first 429 of /a/b starts the measures; in the second to the next, /a/b is accepted once, /c/d five times.
    l.settle(await l.acquire('/a/b'), { status: 429 });
    for (let i = 0; i < 5; i++) l.settle(await l.acquire('/c/d'), ok);
    await vi.advanceTimersByTimeAsync(1000);
    l.settle(await l.acquire('/a/b'), ok);
    l.settle(await l.acquire('/a/b'), { status: 429, retryAfterMs: 1000 });
    expect(l.endpoints.rateOf('/a/b')).toBeCloseTo(RATE_SHARE, 6);
    // Taken for a shared limit, it would have cut the run's rate to 6 a second and paused every request.
    expect(l.learnt.rate).toBeUndefined();
    expect(l.window).toBe(8); // halved by the first 429 only
    expect(l.acquire('/c/d')).not.toBeInstanceOf(Promise);
    expect(l.acquire('/a/b')).toBeInstanceOf(Promise);
  });
});

describe('the rate of an endpoint family limited on its own', () => {
  /**
   * The first 429 of /a/b at 0 starts its measure; then the steps, `ok FAMILY AT` (an accepted answer) or
   * `429 FAMILY AT` (a 429 to a request just sent), separated by commas.
   */
  const learn = (steps: string) => {
    const rates = new EndpointRates();
    let last = rates.refused('/a/b', 0, -10);
    for (const step of steps ? steps.split(', ') : []) {
      const [what, family, at] = step.split(' ');
      if (what === 'ok') rates.accepted(family, Number(at));
      else last = rates.refused(family, Number(at), Number(at) - 10);
    }
    return Object.assign(rates, { own: last.own });
  };
  it.each<[string, string, number | undefined]>([
    ['one answer between two 429s is a rate', 'ok /a/b 1000, 429 /a/b 1000', RATE_SHARE],
    [
      'what the family was accepted, not the others',
      'ok /a/b 500, ok /c/d 600, ok /c/d 700, ok /a/b 1500, 429 /a/b 2000',
      RATE_SHARE,
    ],
    [
      'another family refused between: a shared limit, no rate of its own',
      '429 /c/d 500, ok /a/b 1000, 429 /a/b 1000',
      undefined,
    ],
    [
      'the measure starts again after a shared span',
      '429 /c/d 500, ok /a/b 1000, 429 /a/b 1000, ok /a/b 3000, 429 /a/b 3000',
      0.5 * RATE_SHARE,
    ],
    ['no answer between: no rate', '429 /a/b 1000', undefined],
    ['no 429 after the first: no rate', 'ok /a/b 1000', undefined],
  ])('%s', (_, steps, rate) => {
    const rates = learn(steps);
    if (rate === undefined) expect(rates.rateOf('/a/b')).toBeUndefined();
    else expect(rates.rateOf('/a/b')).toBeCloseTo(rate, 6);
  });

  it.each<[string, string, boolean]>([
    [
      'the others were accepted more than it: its own limit',
      'ok /c/d 200, ok /c/d 400, ok /a/b 1000, 429 /a/b 1000',
      true,
    ],
    ['it was all the platform answered: perhaps a global limit', 'ok /a/b 1000, 429 /a/b 1000', false],
    ['as many of the others as of it: not known to be its own', 'ok /c/d 400, ok /a/b 1000, 429 /a/b 1000', false],
    [
      'another family refused in the span: shared',
      '429 /c/d 500, ok /c/d 600, ok /c/d 700, ok /a/b 1000, 429 /a/b 1000',
      false,
    ],
    [
      'a 429 that does not count keeps what the last one said',
      'ok /c/d 200, ok /c/d 400, ok /a/b 1000, 429 /a/b 1000, 429 /a/b 1100',
      true,
    ],
  ])('whose limit: %s', (_, steps, own) => expect(learn(steps).own).toBe(own));

  it("spaces the family's starts by its rate, and only the family's", () => {
    const rates = learn('ok /a/b 1000, 429 /a/b 1000');
    // Nothing saved up after the 429: one start's worth of time, then one start each 1000/0.95 ms.
    expect(rates.waitMs('/a/b', 1000)).toBeCloseTo(1000 / RATE_SHARE, 6);
    expect(rates.waitMs('/c/d', 1000)).toBe(0);
    const next = 1000 + 1000 / RATE_SHARE;
    expect(rates.waitMs('/a/b', next)).toBeCloseTo(0, 6);
    rates.take('/a/b', next);
    expect(rates.waitMs('/a/b', next)).toBeCloseTo(1000 / RATE_SHARE, 6);
  });
});

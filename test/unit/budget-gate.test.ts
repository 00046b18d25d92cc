// Processes' gates (src/budget/gate.ts) and limiters started together on one bucket, on a virtual clock: a store in
// memory that applies the bucket's rule (allocate.ts), and a platform answering each request a few milliseconds
// later with the limit it publishes (or none). Every process gets all its requests through (before the fix, the
// second process to ask with a `share` was granted NaN requests a second and never started one again), and the
// fleet's starts in any one second stay under share × the limit.
import { describe, expect, it } from 'vitest';
import { busiestSecond } from '../../src/emulator/calls.js';
import { allocate, type BucketDoc, type LeaseAsk } from '../../src/budget/allocate.js';
import { BudgetGate, type BudgetStore } from '../../src/budget/gate.js';
import { Limiter } from '../../src/remote/limiter.js';
import { VirtualClock } from '../helpers/clock.js';

/** The bucket in memory: each lease a round trip of STORE_MS. */
class MemoryStore implements BudgetStore {
  readonly name = 'memory';
  roundTrips = 0;
  doc?: BucketDoc;
  constructor(private readonly clock: VirtualClock) {}
  async lease(ask: LeaseAsk) {
    this.roundTrips++;
    await this.clock.timer(2).done;
    const { doc, grant } = allocate(this.doc, ask, this.clock.ms());
    this.doc = doc;
    return grant;
  }
  async close() {}
}

/** One process: 8 requests at a time through its limiter, each answered after 5 ms with `limit` (if it publishes one). */
function member(clock: VirtualClock, store: MemoryStore, n: number, limit: number | undefined, starts: number[]) {
  const gate = new BudgetGate({
    store,
    holder: { role: 'plan', configuration: 'c', environment: 'e' },
    weight: 1,
    share: 0.5,
    clock,
    warn: () => {},
  });
  const limiter = new Limiter({ concurrency: 8, clock, budget: gate });
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < n) {
      next++;
      const ticket = await limiter.acquire('/streaming/vods/v1/x');
      starts.push(clock.ms());
      await clock.timer(5).done;
      limiter.settle(ticket, { status: 200, ...(gate.wantsLimit ? { limit } : {}) });
      done++;
    }
  };
  const lanes = Promise.all(Array.from({ length: 8 }, lane)).then(() => done);
  /** the requests answered; a process still waiting is stopped (its waiters refused, its lease ended) */
  const stop = async () => {
    limiter.abandonWaiting();
    await gate.close();
    return done;
  };
  return { lanes, stop };
}

describe('gates started together on one bucket with a share', () => {
  it.each([
    ['the platform publishes its limit', 200, 4],
    ['the platform publishes none', undefined, 3],
  ])('%s: every process gets all its requests through', async (_, limit, processes) => {
    const clock = new VirtualClock();
    const store = new MemoryStore(clock);
    const starts: number[] = [];
    const n = 150;
    // A stalled process would wait for ever: the run is bounded on the virtual clock, and counts what got through.
    const members = Array.from({ length: processes }, () => member(clock, store, n, limit, starts));
    // A stalled process would wait for ever: the run is bounded on the virtual clock, and counts what got through.
    const bound = clock.timer(300_000);
    await Promise.race([Promise.allSettled(members.map((m) => m.lanes)), bound.done]);
    bound.cancel();
    const done = await Promise.all(members.map((m) => m.stop()));
    expect(done).toEqual(members.map(() => n));
    if (limit) expect(busiestSecond(starts.map((at) => ({ at })))).toBeLessThanOrEqual(limit / 2);
  });
});

// Processes' gates (src/budget/gate.ts) and limiters started together on one bucket, on a virtual clock: the
// bucket's row in memory, each process's store writing it by compare-and-set on the version it last saw (as
// pg-store.ts does: a lease written on a row another process moved on costs one more round trip; a release is one
// round trip), and a platform
// answering each request a few milliseconds later with the limit it publishes (or none). Every process gets all its
// requests through (before the fix, the second process to ask with a `share` was granted NaN requests a second and
// never started one again), the fleet's starts in any one second stay under its budget, and a fleet of eight costs
// at most one round trip to the store per 25 requests (issue 45's target, counted here without the network).
import { describe, expect, it } from 'vitest';
import { busiestSecond } from '../../src/emulator/calls.js';
import { allocate, type BucketDoc, type LeaseAsk } from '../../src/budget/allocate.js';
import { BudgetGate, type BudgetStore } from '../../src/budget/gate.js';
import { Limiter } from '../../src/remote/limiter.js';
import { VirtualClock } from '../helpers/clock.js';

/** The bucket's row: its version moves on with each write. */
class Row {
  version = 0;
  doc?: BucketDoc;
}

/** One process's store: a lease is a round trip of 1 ms, written only if the row is at the version it last saw. */
class CasStore implements BudgetStore {
  readonly name = 'memory';
  roundTrips = 0;
  private seen: { version: number; doc?: BucketDoc } = { version: 0 };
  constructor(
    private readonly row: Row,
    private readonly clock: VirtualClock,
  ) {}
  async lease(ask: LeaseAsk) {
    if (ask.release) return this.release(ask);
    for (;;) {
      this.roundTrips++;
      const { doc, grant } = allocate(this.seen.doc, ask, this.clock.ms());
      await this.clock.timer(1).done;
      const written = this.row.version === this.seen.version;
      if (written) Object.assign(this.row, { version: this.row.version + 1, doc });
      this.seen = { version: this.row.version, doc: this.row.doc };
      if (written) return grant;
    }
  }
  /** A release removes the holder whatever the version, in one round trip. */
  private async release(ask: LeaseAsk) {
    this.roundTrips++;
    await this.clock.timer(1).done;
    delete this.row.doc?.holders[ask.id];
    this.row.version++;
    return allocate(undefined, ask, 0).grant;
  }
  async close() {}
}

interface Fleet {
  processes: number;
  requests: number;
  budget: { share?: number; max_rps?: number };
  /** what the platform publishes in X-RateLimit-Limit (none: no header) */
  limit?: number;
  latencyMs: number;
}

/** One process: 8 requests at a time through its limiter, each answered after latencyMs. */
function member(clock: VirtualClock, store: BudgetStore, fleet: Fleet, starts: number[]) {
  const gate = new BudgetGate({
    store,
    holder: { role: 'plan', configuration: 'c', environment: 'e' },
    weight: 1,
    ...fleet.budget,
    clock,
    warn: () => {},
  });
  const limiter = new Limiter({ concurrency: 8, clock, budget: gate });
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < fleet.requests) {
      next++;
      const ticket = await limiter.acquire('/streaming/vods/v1/x');
      starts.push(clock.ms());
      await clock.timer(fleet.latencyMs).done;
      limiter.settle(ticket, { status: 200, ...(gate.wantsLimit ? { limit: fleet.limit } : {}) });
      done++;
    }
  };
  const lanes = Promise.all(Array.from({ length: 8 }, lane));
  /** the requests answered; a process still waiting is stopped (its waiters refused, its lease ended) */
  const stop = async () => {
    limiter.abandonWaiting();
    await gate.close();
    return done;
  };
  return { lanes, stop };
}

/** The fleet started together; each process's requests answered, the starts, the round trips to the store. */
async function runFleet(fleet: Fleet) {
  const clock = new VirtualClock();
  const row = new Row();
  const stores = Array.from({ length: fleet.processes }, () => new CasStore(row, clock));
  const starts: number[] = [];
  const members = stores.map((store) => member(clock, store, fleet, starts));
  // A stalled process would wait for ever: the run is bounded on the virtual clock, and counts what got through.
  const bound = clock.timer(600_000);
  await Promise.race([Promise.allSettled(members.map((m) => m.lanes)), bound.done]);
  bound.cancel();
  const done = await Promise.all(members.map((m) => m.stop()));
  const busiest = busiestSecond(starts.map((at) => ({ at })));
  return { done, busiest, roundTrips: stores.reduce((s, st) => s + st.roundTrips, 0), requests: starts.length };
}

describe('gates started together on one bucket', () => {
  it.each<[string, Fleet, number]>([
    [
      'a share of a published limit',
      { processes: 4, requests: 150, budget: { share: 0.5 }, limit: 200, latencyMs: 5 },
      100,
    ],
    [
      'a share where the platform publishes none',
      { processes: 3, requests: 150, budget: { share: 0.5 }, latencyMs: 5 },
      Infinity,
    ],
    ['max_rps', { processes: 4, requests: 150, budget: { max_rps: 50 }, latencyMs: 5 }, 50],
  ])('%s: every process gets all its requests through, within the budget in every second', async (_, fleet, most) => {
    const run = await runFleet(fleet);
    expect(run.done).toEqual(run.done.map(() => fleet.requests));
    expect(run.busiest).toBeLessThanOrEqual(most);
  });

  it('eight processes of 1,000 requests under max_rps 200: one round trip per 25 requests at most', async () => {
    const run = await runFleet({ processes: 8, requests: 1000, budget: { max_rps: 200 }, latencyMs: 20 });
    expect(run.requests).toBe(8000);
    expect(run.roundTrips * 25).toBeLessThanOrEqual(run.requests);
    expect(run.busiest).toBeLessThanOrEqual(200);
  });
});

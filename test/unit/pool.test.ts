// The scheduling helpers the reads rely on: bounded concurrency, time slices shared by all workers, the backlog.
import { describe, expect, it, vi } from 'vitest';
import { Backlog, mapPool, timeSlicer } from '../../src/util/pool.js';

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* CPU work */ }
};
const turn = () => new Promise<void>((r) => setImmediate(r));

describe('mapPool', () => {
  it.each([[1], [3], [16]])('keeps at most %i calls in flight and the results in order', async (limit) => {
    let inFlight = 0;
    let most = 0;
    const out = await mapPool([5, 1, 4, 2, 3, 0, 6], limit, async (n) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0, 60]);
    expect(most).toBe(Math.min(limit, 7));
  });
});

describe('timeSlicer', () => {
  it('costs nothing within the slice, then pauses for a turn of the event loop', async () => {
    const slice = timeSlicer({ sliceMs: 5 });
    expect(slice()).toBeUndefined();
    busy(6);
    let ranBetween = false;
    setImmediate(() => { ranBetween = true; });
    const pause = slice();
    expect(pause).toBeInstanceOf(Promise);
    await pause;
    expect(ranBetween).toBe(true);
    expect(slice()).toBeUndefined();
  });

  it('lets sixteen workers share one slice per turn instead of taking one each', async () => {
    const slice = timeSlicer({ sliceMs: 2 });
    const turnOfItem: number[] = [];
    let turns = 0;
    let counting = true;
    const counter = async () => { while (counting) { turns++; await turn(); } };
    const counted = counter();
    await Promise.all(Array.from({ length: 16 }, async () => {
      for (let i = 0; i < 20; i++) {
        await slice();
        busy(0.1);
        turnOfItem.push(turns);
      }
    }));
    counting = false;
    await counted;
    // 320 items of 0.1 ms: a turn holds about 2 ms of them plus one per worker (about 36), where a slice per
    // worker would let all 320 run without the event loop turning once.
    const perTurn = Object.values(turnOfItem.reduce<Record<number, number>>((acc, t) => ({ ...acc, [t]: (acc[t] ?? 0) + 1 }), {}));
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(60);
    expect(perTurn.length).toBeGreaterThanOrEqual(6);
  });
});

describe('timeSlicer, with replies coming in', () => {
  // Replies arrive every millisecond for `ms`; returns when the last one came.
  const replies = (ms: number, onReply: (at: number) => void) => new Promise<number>((resolve) => {
    const until = performance.now() + ms;
    const timer = setInterval(() => {
      const now = performance.now();
      onReply(now);
      if (now >= until) {
        clearInterval(timer);
        resolve(now);
      }
    }, 1);
  });

  it('goes on only after a quiet spell, sleeping on a timer instead of spinning the event loop', async () => {
    let last = performance.now();
    const slice = timeSlicer({ sliceMs: 1, lastReply: () => last, quietMs: 4, maxWaitMs: 200 });
    busy(2);
    last = performance.now();
    const lastReply = replies(30, (at) => { last = at; });
    const immediates = vi.spyOn(globalThis, 'setImmediate');
    await slice();
    const resumed = performance.now();
    const turns = immediates.mock.calls.length;
    immediates.mockRestore();
    expect(resumed - (await lastReply)).toBeGreaterThanOrEqual(4);
    // One turn to read what is there, then timers; spinning would take thousands of turns in 30 ms.
    expect(turns).toBeLessThan(5);
  });

  it('never waits longer than maxWaitMs when the replies do not stop', async () => {
    let last = performance.now();
    const slice = timeSlicer({ sliceMs: 1, lastReply: () => last, quietMs: 5, maxWaitMs: 20 });
    busy(2);
    last = performance.now();
    let stop = false;
    const timer = setInterval(() => { last = performance.now(); if (stop) clearInterval(timer); }, 1);
    const from = performance.now();
    await slice();
    const waited = performance.now() - from;
    stop = true;
    expect(waited).toBeGreaterThanOrEqual(19);
    expect(waited).toBeLessThan(200);
  });
});

describe('Backlog', () => {
  it('does nothing before the next turn, then everything in order; drain waits for it', async () => {
    const done: number[] = [];
    const backlog = new Backlog<number>((n) => done.push(n));
    backlog.push(1);
    backlog.push(2);
    expect(done).toEqual([]);
    await backlog.drain();
    backlog.push(3);
    await backlog.drain();
    expect(done).toEqual([1, 2, 3]);
  });

  it('keeps going after an error and reports the first one on drain', async () => {
    const done: number[] = [];
    const backlog = new Backlog<number>((n) => {
      if (n % 2) throw new Error(`odd ${n}`);
      done.push(n);
    });
    for (const n of [1, 2, 3, 4]) backlog.push(n);
    await expect(backlog.drain()).rejects.toThrow('odd 1');
    expect(done).toEqual([2, 4]);
  });
});

describe("the emulator's latency clock", () => {
  it('sleepUntil never wakes before its time, where setTimeout alone can', async () => {
    const { sleepUntil } = await import('../../src/emulator/server.js');
    const early = async (sleep: (due: number) => Promise<void>) => {
      let count = 0;
      await Promise.all(Array.from({ length: 300 }, async (_, i) => {
        busy(0.05); // a loaded server: the clock setTimeout counts from goes stale
        const due = performance.now() + 3 + (i % 7) * 0.3;
        await sleep(due);
        if (performance.now() < due) count++;
      }));
      return count;
    };
    expect(await early(sleepUntil)).toBe(0);
  });
});

// The scheduling helpers reads and apply rely on: bounded concurrency, dependency waves.
import { describe, expect, it } from 'vitest';
import { mapPool, waves } from '../../src/util/pool.js';

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* CPU work */
  }
};

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

describe('waves', () => {
  const items = (deps: Record<string, string[]>) => Object.entries(deps).map(([key, d]) => ({ key, d }));
  it.each([
    ['nothing refers to anything: one wave', { a: [], b: [], c: [] }, [['a', 'b', 'c']]],
    ['a chain: one wave each', { c: ['b'], b: ['a'], a: [] }, [['a'], ['b'], ['c']]],
    ['a reference outside the set does not hold anything up', { a: ['zzz'], b: ['a'] }, [['a'], ['b']]],
    ['a diamond', { d: ['b', 'c'], b: ['a'], c: ['a'], a: [] }, [['a'], ['b', 'c'], ['d']]],
  ])('%s', (_, deps, expected) => {
    expect(
      waves(
        items(deps),
        (t) => t.key,
        (t) => t.d,
      ).map((w) => w.map((t) => t.key)),
    ).toEqual(expected);
  });
  it('refuses a cycle', () => {
    expect(() =>
      waves(
        items({ a: ['b'], b: ['a'] }),
        (t) => t.key,
        (t) => t.d,
      ),
    ).toThrow('dependency cycle');
  });
});

describe("the emulator's latency clock", () => {
  it('sleepUntil never wakes before its time, where setTimeout alone can', async () => {
    const { sleepUntil } = await import('../../src/emulator/server.js');
    const early = async (sleep: (due: number) => Promise<void>) => {
      let count = 0;
      await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          busy(0.05); // a loaded server: the clock setTimeout counts from goes stale
          const due = performance.now() + 3 + (i % 7) * 0.3;
          await sleep(due);
          if (performance.now() < due) count++;
        }),
      );
      return count;
    };
    expect(await early(sleepUntil)).toBe(0);
  });
});

// agent/membership.ts in virtual time: the live replicas are read again every poll of the agent's clock, the shares
// follow, a failure to list them leaves this replica none (said once, and once when they are listed again), and stop
// ends the loop at once, mid-wait.
import { describe, expect, it } from 'vitest';
import { Membership } from '../../src/agent/membership.js';
import { manualClock } from '../../src/util/clock.js';

/** A replica list answering `answers` in turn (an Error is a failed read), and what the membership logged. */
function membership(answers: Array<string[] | Error>) {
  const clock = manualClock(new Date('2026-12-02T06:00:00Z'));
  const logged: string[] = [];
  let reads = 0;
  const replicas = {
    id: 'a',
    live: async () => {
      const next = answers[Math.min(reads++, answers.length - 1)];
      if (next instanceof Error) throw next;
      return next;
    },
    leave: async () => {},
  };
  const m = new Membership(replicas, (level, msg) => logged.push(`${level} ${msg}`), 1000, clock);
  return { m, clock, logged, reads: () => reads };
}

/** Until `changed` has been called `n` times (the poll's read and recompute are a few promises long). */
const polls = (n: number) => {
  let seen = 0;
  let done!: () => void;
  const reached = new Promise<void>((r) => (done = r));
  return { changed: () => ++seen === n && done(), reached, seen: () => seen };
};

describe('Membership', () => {
  it('reads the replicas once a poll, on the clock given, and shares the configurations among them', async () => {
    const { m, clock, reads } = membership([['a'], ['a', 'b']]);
    m.configurations(['x', 'y', 'z', 'w']);
    await m.refresh();
    expect(m.status()).toEqual({ id: 'a', live: 1, share: 4 });
    const p = polls(1);
    const loop = m.run(p.changed);
    clock.advance(999);
    await Promise.resolve();
    expect(reads()).toBe(1);
    clock.advance(1);
    await p.reached;
    expect(reads()).toBe(2);
    expect(m.status().live).toBe(2);
    expect(m.status().share).toBeLessThan(4);
    m.stop();
    await loop;
  });

  it('a failed read leaves none, said once; listed again, said once', async () => {
    const { m, clock, logged } = membership([['a'], new Error('down'), new Error('down'), ['a']]);
    m.configurations(['x']);
    await m.refresh();
    const p = polls(3);
    const loop = m.run(p.changed);
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      await new Promise((r) => setImmediate(r));
    }
    await p.reached;
    m.stop();
    await loop;
    expect(logged.filter((l) => l.includes('replicas'))).toEqual([
      'warn cannot list the replicas: reconciling none until it can',
      'info the replicas are listed again',
    ]);
    expect(m.assigned('x')).toBe(true);
  });

  it('stop ends the loop mid-wait, with no read after it', async () => {
    const { m, reads } = membership([['a']]);
    const p = polls(1);
    const loop = m.run(p.changed);
    m.stop();
    await loop;
    expect(reads()).toBe(0);
    expect(p.seen()).toBe(0);
  });
});

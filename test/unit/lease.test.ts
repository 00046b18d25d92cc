// The lock's lease on a clock of the test's own: when a confirmation is asked, what a write may rest on, and what
// counts as a lost lock. No socket: `ask` is the test's, answered (or not) when the test says.
import { describe, expect, it } from 'vitest';
import { leaseTimes, lockBoundOf, LockLease, type Asked, type LeaseClock } from '../../src/state/lease.js';

function fakeClock() {
  let t = 0;
  const timers = new Set<{ at: number; fire: () => void }>();
  const clock: LeaseClock & { advance(ms: number): void } = {
    now: () => t,
    after(ms) {
      let fire!: () => void;
      const done = new Promise<void>((r) => {
        fire = r;
      });
      const timer = { at: t + ms, fire };
      timers.add(timer);
      return { done, cancel: () => timers.delete(timer) };
    },
    advance(ms) {
      t += ms;
      for (const timer of [...timers])
        if (timer.at <= t) {
          timers.delete(timer);
          timer.fire();
        }
    },
  };
  return clock;
}

/** A lease taken at 0 (bound 3000: renew after 1000, deadline 2000) whose confirmations the test answers. */
function lease() {
  const clock = fakeClock();
  const asked: { at: number; answer: (a: Asked | Error) => void }[] = [];
  const ask = () =>
    new Promise<Asked>((resolve, reject) => {
      asked.push({ at: clock.now(), answer: (a) => (a instanceof Error ? reject(a) : resolve(a)) });
    });
  const l = new LockLease(ask, 'S', leaseTimes(3000), 0, clock);
  const lost: string[] = [];
  l.onLost((why) => lost.push(why));
  return { l, clock, asked, lost };
}

const tick = () => new Promise((r) => setImmediate(r));
const settled = async (p: Promise<void>) => {
  let state = 'pending';
  p.then(
    () => (state = 'ok'),
    (e: Error) => (state = `error: ${e.message}`),
  );
  await tick();
  return state;
};

describe('the lock lease', () => {
  it('takes a third of the bound to renew and two thirds as the deadline', () => {
    expect(leaseTimes(3000)).toEqual({ boundMs: 3000, renewMs: 1000, deadlineMs: 2000 });
    expect(leaseTimes()).toEqual(leaseTimes(3000));
  });

  it('lets a write rest on a confirmation younger than the renewal time without asking', async () => {
    const { l, clock, asked } = lease();
    clock.advance(999);
    expect(await settled(l.confirm())).toBe('ok');
    expect(asked).toEqual([]);
  });

  it('asks once for every write waiting meanwhile, and dates the confirmation from when it was sent', async () => {
    const { l, clock, asked } = lease();
    clock.advance(1000);
    const writes = [l.confirm(), l.confirm(), l.confirm()];
    expect(asked.map((a) => a.at)).toEqual([1000]);
    clock.advance(1500); // answered 1.5 s later, within the deadline
    asked[0].answer({ held: true });
    expect(await Promise.all(writes.map(settled))).toEqual(['ok', 'ok', 'ok']);
    // Renewed at 1000 + 1000, not 2500 + 1000: the server held it some time after the question was sent.
    expect(await settled(l.confirm())).toBe('pending');
    expect(asked.map((a) => a.at)).toEqual([1000, 2500]);
  });

  it('counts a confirmation not answered within the deadline as a lost lock, for good', async () => {
    const { l, clock, asked, lost } = lease();
    clock.advance(1000);
    const write = l.confirm();
    clock.advance(1999);
    expect(await settled(write)).toBe('pending');
    clock.advance(1);
    expect(await settled(write)).toMatch(/^error: the lock on the state S was not confirmed within 2000 ms/);
    expect(lost).toHaveLength(1);
    asked[0].answer({ held: true }); // too late: nothing brings the lease back
    expect(await settled(l.confirm())).toMatch(/not confirmed within 2000 ms/);
    expect(asked).toHaveLength(1);
    expect(l.lost).toBe(lost[0]);
  });

  it.each([
    [
      'a server that says the lock is not held',
      { held: false, why: 'not ours any more' } as Asked,
      'not ours any more',
    ],
    ['a confirmation that fails', new Error('connection ended'), 'connection ended'],
  ])('counts %s as a lost lock, with its reason', async (_, answer, why) => {
    const { l, clock, asked, lost } = lease();
    clock.advance(1200);
    const write = l.confirm();
    asked[0].answer(answer);
    expect(await settled(write)).toBe(`error: ${why}`);
    expect(lost).toEqual([why]);
  });

  it('asks again when the process stalled past the bound after the answer came', async () => {
    const { l, clock, asked } = lease();
    clock.advance(1000);
    const write = l.confirm();
    clock.advance(1900);
    asked[0].answer({ held: true });
    clock.advance(1200); // 3100 since the question: past the bound before the write could go
    await tick();
    expect(asked.map((a) => a.at)).toEqual([1000, 4100]);
    asked[1].answer({ held: true });
    expect(await settled(write)).toBe('ok');
  });

  it('tells a listener that comes after the loss at once', () => {
    const { l } = lease();
    l.lose('gone');
    const told: string[] = [];
    l.onLost((why) => told.push(why));
    expect(told).toEqual(['gone']);
  });
});

describe('TAPEDECK_LOCK_BOUND_MS', () => {
  it.each([
    [undefined, 3000],
    ['', 3000],
    ['600', 600],
    ['600000', 600000],
  ])('%j is a bound of %d ms', (raw, ms) => {
    expect(lockBoundOf(raw === undefined ? {} : { TAPEDECK_LOCK_BOUND_MS: raw })).toBe(ms);
  });

  it.each(['abc', '10', '1.5', '-1', '600001'])('%j is refused, named', (raw) => {
    expect(() => lockBoundOf({ TAPEDECK_LOCK_BOUND_MS: raw })).toThrow(
      `TAPEDECK_LOCK_BOUND_MS must be a whole number of milliseconds from 30 to 600000, not "${raw}"`,
    );
  });
});

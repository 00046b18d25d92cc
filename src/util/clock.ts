// The time a run reads and waits on: the system's, or one a test (or a rehearsal) gives, so that what depends on
// the hour (change windows, the rules' `now`, when the agent runs next) is tested without waiting on it.
import type { Clock } from '../types.js';

export const systemClock: Clock = {
  now: () => new Date(),
  ms: () => performance.now(),
  after(ms, fn, background = false) {
    // A due time already past is due now (Node 24 warns on a negative delay).
    const timer = setTimeout(fn, Math.max(0, ms));
    if (background) timer.unref();
    return () => clearTimeout(timer);
  },
  timer(ms) {
    let cancel!: () => void;
    const done = new Promise<void>((resolve) => {
      const t = setTimeout(resolve, Math.max(0, ms));
      cancel = () => {
        clearTimeout(t);
        resolve();
      };
    });
    return { done, cancel };
  },
};

/** A clock that moves only when told: its timers end as `advance` passes their time. */
export function manualClock(start: Date): Clock & { advance(ms: number): void; set(at: Date): void } {
  let at = start.getTime();
  const timers = new Set<{ due: number; resolve: () => void }>();
  const fire = () => {
    for (const t of [...timers])
      if (t.due <= at) {
        timers.delete(t);
        t.resolve();
      }
  };
  const after = (ms: number, fn: () => void) => {
    const entry = { due: at + ms, resolve: fn };
    timers.add(entry);
    fire();
    return () => void timers.delete(entry);
  };
  return {
    now: () => new Date(at),
    ms: () => at,
    after,
    timer(ms) {
      let entry!: { due: number; resolve: () => void };
      const done = new Promise<void>((resolve) => {
        entry = { due: at + ms, resolve };
      });
      timers.add(entry);
      fire();
      return {
        done,
        cancel: () => {
          timers.delete(entry);
          entry.resolve();
        },
      };
    },
    advance(ms) {
      at += ms;
      fire();
    },
    set(to) {
      at = to.getTime();
      fire();
    },
  };
}

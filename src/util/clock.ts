// The one clock of a run: the HTTP client's retry waits and deadlines, the limiter's pacing, apply's create
// backoff, and the emulator's rate buckets, latency and call log all read it. The process's own clock in use; a test
// passes a virtual one (test/helpers/clock.ts), so waits on rate limits and retries cost no real time.
import { setTimeout as wait } from 'node:timers/promises';
import type { Clock } from '../types.js';

export type { Clock };

export const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) => wait(ms),
  after(ms, fn, background = false) {
    const timer = setTimeout(fn, ms);
    if (background) timer.unref();
    return () => clearTimeout(timer);
  },
};

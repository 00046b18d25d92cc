// The webhook's refusals in the log, bounded: a flood of bad deliveries must not become a flood of log lines (a
// synchronous write each to a log pipe that may be slow, and the disk behind it). The first refusal of each reason
// is logged at once; those that follow within the window are counted and logged as one line when it ends.
import type { Log } from './log.js';

export const REFUSALS_WINDOW_MS = 60_000;

export function refusalLog(log: Log, windowMs = REFUSALS_WINDOW_MS): (why: string) => void {
  const repeated = new Map<string, number>();
  const close = (why: string) => {
    const count = repeated.get(why) ?? 0;
    if (!count) return void repeated.delete(why);
    log('warn', 'webhook refused', { reason: why, repeated: count, window_ms: windowMs });
    open(why);
  };
  const open = (why: string) => {
    repeated.set(why, 0);
    setTimeout(() => close(why), windowMs).unref();
  };
  return (why) => {
    const count = repeated.get(why);
    if (count !== undefined) return void repeated.set(why, count + 1);
    log('warn', 'webhook refused', { reason: why });
    open(why);
  };
}

// How V8 runs a tapedeck process: set by bin.ts before any command is loaded (and by the benchmark's runner, so
// that it measures the process users run).
import { setFlagsFromString } from 'node:v8';

/**
 * No allocation-site pretenuring. V8 allocates an allocation site's objects straight in the old generation once
 * most of them are found alive at a young collection. A plan's requests are in flight when such a collection comes;
 * once the sites of the request path are tenured, every later request leaves its garbage in the old generation until
 * a full collection, which a plan may never need: at 100,000 documents one plan in three took 320-340 MB instead of
 * 270 (docs/performance.md). tapedeck builds its long-lived data once, so pretenuring has little to gain here.
 */
export function tuneEngine(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}

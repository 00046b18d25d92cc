// How V8 runs a tapedeck process: set by bin.ts before any command is loaded (and by the benchmark's runner, so
// that it measures the process users run). Measured in docs/performance.md (2026-11-24).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's full collection, where tuneEngine made one available; never a global of the program's. */
let collect: (() => void) | undefined;

export function tuneEngine(): void {
  // No allocation-site pretenuring. V8 allocates a site's objects straight in the old generation once most of them
  // are found alive at a young collection. A plan's requests are in flight when such a collection comes; once the
  // request path's sites are tenured, every later request leaves its garbage in the old generation until a full
  // collection, which a plan may never need: at 100,000 documents one plan in three took 320-340 MB instead of 270.
  // tapedeck builds its long-lived data once, so pretenuring has little to gain here.
  setFlagsFromString('--no-allocation-site-pretenuring');
  // The old generation grows at most 20% over what is live before the next full collection (V8 otherwise lets it
  // grow up to 4× while collections are cheap): the garbage a run carries stays in proportion to what it keeps, and
  // memory grows about linearly with the configuration. At 100,000 documents plan 216 MB instead of 233 (with the
  // collection after the reads), for more full collections: CPU within this machine's noise, no longer wall time.
  setFlagsFromString('--heap-growing-percent=20');
  // `gc` is handed only to a context made after the flag is set: taken from one, it stays out of the program's globals.
  setFlagsFromString('--expose-gc');
  collect = runInNewContext('gc');
}

/**
 * A full collection when a phase's garbage is done with: after the reads, before the plan is built. The reads
 * are mostly waiting on the platform and allocate too slowly for V8 to start a full collection (at 100,000
 * documents none runs for 48 s), so their promoted garbage (answers, request bookkeeping) was still there when
 * building and applying the plan piled their own on top: at 100,000 plan 229 -> 216 MB, apply 236 -> 221 MB,
 * no-op plan 300 -> 252 MB, for one collection of about 50 ms. A no-op where the process was not tuned (tests).
 */
export function collectPhaseGarbage(): void {
  collect?.();
}

// How V8 runs a tapedeck process: set by bin.ts before any command is loaded (and by the benchmark's runner, so
// that it measures the process users run). Measured in docs/performance.md (2026-11-24, 2026-11-26).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's full collection, where tuneEngine made one available; never a global of the program's. */
let collect: (() => void) | undefined;

export function tuneEngine(): void {
  // No allocation-site pretenuring: once V8 tenures the request path's sites (requests are in flight at every young
  // collection), each later request leaves its garbage in the old generation, and some runs take far more memory.
  setFlagsFromString('--no-allocation-site-pretenuring');
  // The old generation grows at most 20% over what is live before the next full collection (V8 allows up to 4×), so
  // memory grows about linearly with the configuration (the --scale targets). It costs CPU: more full collections,
  // about 20-25% more CPU at 100,000 documents and 10% at 10,000 (docs/performance.md).
  setFlagsFromString('--heap-growing-percent=20');
  // `gc` is handed only to a context made after the flag is set: taken from one, it stays out of the program's globals.
  setFlagsFromString('--expose-gc');
  collect = runInNewContext('gc');
}

/**
 * A full collection when a phase's garbage is done with: after the reads, before the plan is built. The reads wait
 * on the platform and allocate too slowly for V8 to collect fully, so their garbage would still be there when the
 * plan piles its own on top (the --scale RSS targets; figures in docs/performance.md). A no-op where the process was
 * not tuned (tests).
 */
export function collectPhaseGarbage(): void {
  collect?.();
}

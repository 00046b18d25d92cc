// The platform's rate when it publishes none (no X-RateLimit headers: the live platform's way). A window of requests
// on the wire does not find a rate: each time the window reaches the limit, the requests in flight meet it together.
// So 429s naming no limit teach a rate, and request starts are then paced to just below it (AIMD on the rate):
// - the rate is what the platform accepted (answers that were not 429) between two 429s. A token bucket that refused
//   both times was empty both times, so what it let through in between is its refill, whatever burst or pause came
//   between. The first 429 only starts the measure: what came before it includes the bucket's first burst;
// - starts are paced at RATE_SHARE of it, and the rate grows by GROWTH of itself per accepted answer (about 1% a
//   second when the rate is used), so a limit that rises, or an estimate that came out low, is found again;
// - a 429 to a request started before the last cut, or sooner than MIN_MEASURE_MS after it, is news already acted on;
// - 429s that are not the rate's (a platform refusing at random) come however slowly we send, and each measure would
//   then be lower than the last: the rate is never cut below FLOOR of the highest measured, so they cost a little
//   speed, not all of it.

import { TokenBucket } from '../util/token-bucket.js';

/** Starts are paced at this share of the measured rate: room for the measure's error, fewer 429s to find it again. */
export const RATE_SHARE = 0.95;
/** Per accepted answer, the rate grows by this share of itself (1% a second at the rate). */
export const GROWTH = 0.0001;
/** The rate is never cut below this share of the highest rate measured */
export const FLOOR = 0.85;
/** Answers needed before a rate is learnt from them */
const MIN_EVIDENCE = 3;
/** Less time than this between two 429s measures too little */
const MIN_MEASURE_MS = 250;

/** How a rate is learnt: the answers needed between two 429s, and the lowest rate it is cut to. */
export interface Learning {
  minEvidence: number;
  minRate: number;
}
/** The run's rate (every request): a few answers between 429s are no measure of a platform taking hundreds. */
const RUN: Learning = { minEvidence: MIN_EVIDENCE, minRate: 1 };

export class LearntRate {
  /** starts per second, once learnt */
  rate?: number;
  /** the highest rate measured */
  private peak = 0;
  /** when the last 429 that counted came, and the answers accepted since */
  private cutAt?: number;
  private acceptedSinceCut = 0;
  private readonly bucket = new TokenBucket();

  constructor(private readonly learning: Learning = RUN) {}

  /** Since when the next measure counts (the last 429 that counted), if one has come. */
  get measuringSince(): number | undefined {
    return this.cutAt;
  }

  /** An answer that was not a 429, at `now`. */
  accepted(now: number): void {
    this.acceptedSinceCut++;
    if (this.rate === undefined) return;
    this.bucket.refill(now, this.rate);
    this.rate *= 1 + GROWTH;
  }

  /**
   * A 429 naming no limit, at `now`, to a request started at `startedAt`. Returns the new rate when it was cut, for
   * the debug line; undefined when the 429 was news already acted on or too little is known yet. `learn` false: the
   * measure only starts again (what came between is known to be no measure of this rate).
   */
  refused(now: number, startedAt: number, learn = true): number | undefined {
    if (this.cutAt !== undefined && (startedAt < this.cutAt || now - this.cutAt < MIN_MEASURE_MS)) return undefined;
    const first = this.cutAt === undefined;
    const measured = first ? 0 : (this.acceptedSinceCut * 1000) / (now - this.cutAt!);
    const enough = this.acceptedSinceCut >= this.learning.minEvidence;
    this.cutAt = now;
    this.acceptedSinceCut = 0;
    if (first || !enough || !learn) return undefined;
    this.peak = Math.max(this.peak, measured);
    this.rate = Math.max(this.learning.minRate, RATE_SHARE * Math.max(measured, FLOOR * this.peak));
    // Nothing saved up: what the platform refused now, it has no room for.
    this.bucket.keepAtMost(now, 0);
    return this.rate;
  }

  /** Milliseconds until a request may start (0: now). */
  waitMs(now: number): number {
    return this.rate === undefined ? 0 : this.bucket.waitMs(now, this.rate);
  }

  /** A request starts now. */
  take(now: number): void {
    if (this.rate !== undefined) this.bucket.take(now, this.rate);
  }
}

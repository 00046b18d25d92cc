// The rate of one endpoint family (/cms/banners) that the platform limits on its own, learnt from its 429s when they
// name no limit. The run's learnt rate (pace.ts) cannot find it: one slow endpoint among fast ones, or alone, gets
// one request accepted between two 429s, too few to measure a platform taking hundreds. So requests refused together
// waited the same Retry-After and came back together, all but one refused again, round after round, until one ran
// out of retries. Here the family's rate is what the platform accepted of the family between two of its 429s (one
// answer is enough), and the family's starts are then spaced by it, one at a time after the pause.
// A family learns only from a span in which no other family was refused: 429s across families are a shared limit
// (per service, or global), which the run's rate paces; a family's share of it is no rate of its own.
import { LearntRate, type Learning } from './pace.js';

/** One answer between two 429s measures an endpoint's rate; a limit of one request a minute is still a rate. */
const ENDPOINT: Learning = { minEvidence: 1, minRate: 1 / 60 };

interface Family {
  rate: LearntRate;
  /** when its last 429 came (any, counted or not) */
  refusedAt: number;
}

export class EndpointRates {
  private readonly families = new Map<string, Family>();

  /** The family's rate, once learnt (requests a second). */
  rateOf(family: string): number | undefined {
    return this.families.get(family)?.rate.rate;
  }

  /** An answer to the family that was not a 429. */
  accepted(family: string, now: number): void {
    this.families.get(family)?.rate.accepted(now);
  }

  /** A 429 naming no limit to a request of the family started at `startedAt`: its new rate when it was cut. */
  refused(family: string, now: number, startedAt: number): number | undefined {
    let mine = this.families.get(family);
    if (!mine) this.families.set(family, (mine = { rate: new LearntRate(ENDPOINT), refusedAt: now }));
    const since = mine.rate.measuringSince ?? Infinity;
    const shared = [...this.families].some(([name, other]) => name !== family && other.refusedAt > since);
    mine.refusedAt = now;
    return mine.rate.refused(now, startedAt, !shared);
  }

  /** Milliseconds until a request of the family may start (0: now). */
  waitMs(family: string, now: number): number {
    return this.families.get(family)?.rate.waitMs(now) ?? 0;
  }

  /** A request of the family starts now. */
  take(family: string, now: number): void {
    this.families.get(family)?.rate.take(now);
  }
}

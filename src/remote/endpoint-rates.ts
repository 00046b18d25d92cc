// The rate of one endpoint family (/cms/banners) that the platform limits on its own, learnt from its 429s when they
// name no limit. The run's learnt rate (pace.ts) cannot find it: one slow endpoint among fast ones, or alone, gets
// one request accepted between two 429s, too few to measure a platform taking hundreds. So requests refused together
// waited the same Retry-After and came back together, all but one refused again, round after round, until one ran
// out of retries. Here the family's rate is what the platform accepted of the family between two of its 429s (one
// answer is enough), and the family's starts are then spaced by it, one at a time after the pause.
// - A family learns only from a span in which no other family was refused: 429s across families are a shared limit
//   (per service, or global), which the run's rate paces; a family's share of it is no rate of its own.
// - A family's limit is its own, not the run's, when besides that the platform accepted more of the other families
//   than of it in the span: it had room for them. Its 429s then pause the family alone and teach the run's rate
//   nothing, so one slow endpoint does not hold the others to its pace. (A family that was all the platform answered
//   in the span may be meeting a global limit: its 429s pause and teach the run as any other.)
import { LearntRate, type Learning } from './pace.js';

/** The endpoint family of a path: its first two segments (`/cms/banners/v1/b1` is `/cms/banners`). */
export function familyOf(path: string): string {
  const second = path.indexOf('/', 1);
  const third = second < 0 ? -1 : path.indexOf('/', second + 1);
  const end = third < 0 ? path.length : third;
  const q = path.indexOf('?');
  return path.slice(0, q >= 0 && q < end ? q : end);
}

/** One answer between two 429s measures an endpoint's rate; a limit of one request a minute is still a rate. */
const ENDPOINT: Learning = { minEvidence: 1, minRate: 1 / 60 };

interface Family {
  rate: LearntRate;
  /** when its last 429 came (any, counted or not) */
  refusedAt: number;
  /** answers accepted since its measure started: of the family, of the others */
  mine: number;
  others: number;
  /** its limit is its own (as of its last 429 that counted) */
  own: boolean;
  /** a 429 to its own limit holds back its requests until then */
  pausedUntil: number;
}

export class EndpointRates {
  private readonly families = new Map<string, Family>();

  /** The family's rate, once learnt (requests a second). */
  rateOf(family: string): number | undefined {
    return this.families.get(family)?.rate.rate;
  }

  /** An answer to the family that was not a 429. */
  accepted(family: string, now: number): void {
    for (const [name, f] of this.families) {
      if (name !== family) f.others++;
      else {
        f.mine++;
        f.rate.accepted(now);
      }
    }
  }

  /**
   * A 429 to a request of the family started at `startedAt`: its new rate when this cut it, and
   * whether the limit is the family's own (then the 429 is the family's alone to act on).
   */
  refused(family: string, now: number, startedAt: number): { cut?: number; own: boolean } {
    let mine = this.families.get(family);
    if (!mine) {
      mine = { rate: new LearntRate(ENDPOINT), refusedAt: now, mine: 0, others: 0, own: false, pausedUntil: 0 };
      this.families.set(family, mine);
    }
    const since = mine.rate.measuringSince ?? Infinity;
    const shared = [...this.families].some(([name, other]) => name !== family && other.refusedAt > since);
    mine.refusedAt = now;
    const cut = mine.rate.refused(now, startedAt, !shared);
    if (mine.rate.measuringSince !== since) {
      // The 429 counted: the span it closes tells whose limit it is, and the next span starts.
      mine.own = !shared && mine.rate.rate !== undefined && mine.others > mine.mine;
      mine.mine = mine.others = 0;
    }
    return { cut, own: mine.own };
  }

  /** A 429 to the family's own limit asked to wait until `until`. */
  pause(family: string, until: number): void {
    const mine = this.families.get(family)!;
    mine.pausedUntil = Math.max(mine.pausedUntil, until);
  }

  /** Milliseconds until a request of the family may start (0: now). */
  waitMs(family: string, now: number): number {
    const mine = this.families.get(family);
    return mine ? Math.max(mine.rate.waitMs(now), mine.pausedUntil - now) : 0;
  }

  /** A request of the family starts now. */
  take(family: string, now: number): void {
    this.families.get(family)?.rate.take(now);
  }
}

// The token bucket that paces request starts at a rate: the learnt rate of a run (remote/pace.ts) and the rate a
// process leased from the fleet's budget (budget/gate.ts). The rate is the caller's, given at each call: it changes
// as the caller learns or is granted another.

/** Starts that may go at once after an idle moment: a burst only as long as the timer's granularity, no more. */
const BURST_SECONDS = 0.02;

export class TokenBucket {
  private tokens = 0;
  private at = 0;

  /** What `rate` (starts a second) has added since the last call, up to its burst (one start at least). */
  refill(now: number, rate: number): void {
    // No time passed adds nothing, whatever the rate: at an unlimited one, 0 × Infinity would make every later
    // count NaN, and a bucket that never again has a token stalls its process for good.
    const added = now > this.at ? ((now - this.at) * rate) / 1000 : 0;
    this.tokens = Math.min(Math.max(1, rate * BURST_SECONDS), this.tokens + added);
    this.at = now;
  }

  /** Milliseconds until a start may go at `rate` (0: now). */
  waitMs(now: number, rate: number): number {
    this.refill(now, rate);
    return this.tokens >= 1 ? 0 : ((1 - this.tokens) * 1000) / rate;
  }

  /** A start goes now. */
  take(now: number, rate: number): void {
    this.refill(now, rate);
    this.tokens--;
  }

  /** One start may go now, whatever was saved (the budget's probe: its answer tells the platform's limit). */
  saveOne(): void {
    this.tokens = Math.max(this.tokens, 1);
  }

  /** Keeps at most `n` saved starts from now on (0: what the platform refused now, it has no room for). */
  keepAtMost(now: number, n: number): void {
    this.tokens = n === 0 ? 0 : Math.min(this.tokens, n);
    this.at = now;
  }
}

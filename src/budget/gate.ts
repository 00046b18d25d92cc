// One process's side of the fleet's budget: the rate it leased (allocate.ts), spent locally by the limiter, renewed
// in the background about once per lease (one round trip to the store), and what it learns told to the others at its
// next round trip (a 429 at once). When the store cannot be reached, the process paces alone at a fallback rate that
// never exceeds its part of the budget, says so once, and keeps asking the store at each lease's time.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { errorLine } from '../errors.js';
import type { Clock } from '../types.js';
import { TokenBucket } from '../util/token-bucket.js';
import { LEASE_MS, type Grant, type HolderInfo, type LeaseAsk } from './allocate.js';

/** Where the bucket is kept: one round trip applies an ask and returns the grant (stores: file-store, pg-store). */
export interface BudgetStore {
  /** the store as messages name it */
  readonly name: string;
  /** round trips made so far (a file's: leases) */
  readonly roundTrips: number;
  lease(ask: LeaseAsk): Promise<Grant>;
  close(): Promise<void>;
}

export interface GateOptions {
  store: BudgetStore;
  holder: Omit<HolderInfo, 'host' | 'pid'>;
  weight: number;
  max_rps?: number;
  share?: number;
  clock: Clock;
  /** said once, when the store cannot be reached */
  warn: (line: string) => void;
  debug?: (line: string) => void;
}

/**
 * The fallback rate: the process's weighted part of the last ceiling it saw (its weight over the weights of the
 * holders then), never above its last grant: with every holder falling back alike, their rates add up to the ceiling
 * at most. With no ceiling ever seen, the configured max_rps alone (the holders unknown, one per lease seen is assumed).
 */
export function fallbackRate(last: Grant | undefined, weight: number, maxRps?: number): number {
  if (!last) return maxRps === undefined ? Infinity : maxRps / 2;
  const part = Number.isFinite(last.ceiling) ? (last.ceiling * weight) / Math.max(weight, last.weights) : Infinity;
  return Math.max(0.5, Math.min(part, Number.isFinite(last.rate) && last.rate > 0 ? last.rate : part));
}

export class BudgetGate {
  private readonly id = randomUUID();
  private rate = 0;
  private readonly bucket = new TokenBucket();
  /** when the lease ends and when to renew it (the run's clock) */
  private endsAt = -Infinity;
  private renewAt = -Infinity;
  private generation = 0;
  private last: Grant | undefined;
  private asking: Promise<void> | undefined;
  private cancelRenewal = () => {};
  private fallback = false;
  private warned = false;
  private closed = false;
  /** what the next ask reports */
  private refused?: number;
  private reported?: number;
  private retryAfterMs?: number;
  /** the limit the answers published (null: they carry none; undefined: none answered yet) */
  private platformLimit?: number | null;
  /** the one start a probe lease lets go at once has been given */
  private probed = false;
  private usedInLease = 0;
  private leaseStart = 0;
  private waitedInLease = false;
  /** since when a request has waited on the budget alone (undefined: none waits) */
  private waitingSince?: number;
  /** the run's waits on the budget, ms */
  waitedMs = 0;
  /** told when a lease comes: requests held back may start */
  onGrant: () => void = () => {};

  constructor(private readonly opts: GateOptions) {}

  /** The rate now granted, requests a second (Infinity: nothing limits; 0: waiting for the others). */
  get share(): number {
    return this.rate;
  }

  /** Whether answers' published limits matter: a share is of it, and a probe lease ends with the first answer. */
  get wantsLimit(): boolean {
    return this.opts.share !== undefined || !!this.last?.probe;
  }

  get roundTrips(): number {
    return this.opts.store.roundTrips;
  }

  get coordinated(): boolean {
    return !this.fallback;
  }

  /** Milliseconds until a request may start (0: now; Infinity: when a lease comes, told by onGrant). */
  waitMs(now: number): number {
    const wait = this.wait(now);
    if (wait > 0) this.waitingSince ??= now;
    return wait;
  }

  private wait(now: number): number {
    if (now >= this.endsAt && !this.fallback) {
      void this.renew();
      return Infinity;
    }
    if (now >= this.renewAt) void this.renew();
    if (this.rate === Infinity) return 0;
    if (this.rate <= 0) return Infinity;
    const ms = this.bucket.waitMs(now, this.rate);
    if (ms === 0) return 0;
    // A token that comes only after the lease ends is the next lease's to give.
    return this.fallback || now + ms < this.endsAt ? ms : Infinity;
  }

  /** A request starts now. */
  take(now: number): void {
    if (this.waitingSince !== undefined) {
      this.waitedMs += now - this.waitingSince;
      this.waitedInLease = true;
      this.waitingSince = undefined;
    }
    this.usedInLease++;
    if (this.rate !== Infinity) this.bucket.take(now, this.rate);
  }

  /** A 429 that named no limit: the fleet is told at once (a renewal now), under the lease's generation. */
  refused429(retryAfterMs?: number): void {
    const longer = !!retryAfterMs && retryAfterMs > (this.retryAfterMs ?? 0);
    if (longer) this.retryAfterMs = retryAfterMs;
    // One report per generation: the others of the same overshoot are news the fleet has acted on.
    if (this.reported === this.generation && !longer) return;
    this.reported = this.refused = this.generation;
    void this.renew();
  }

  /**
   * An answer's published limit (X-RateLimit-Limit; undefined: it carried none). `share` is of it, so a lease granted
   * without it (the fleet's probe) ends now, and the limit, or that the answers carry none, goes to the store at once.
   */
  limitSeen(limit: number | undefined): void {
    // Once a limit is known, an answer without one says nothing new (a path no limit covers).
    const seen = limit ?? this.platformLimit ?? null;
    if (this.platformLimit === seen) return;
    this.platformLimit = seen;
    if (!this.wantsLimit) return;
    this.endsAt = -Infinity;
    void this.renew();
  }

  private ask(release = false): LeaseAsk {
    const now = this.opts.clock.ms();
    const seconds = Math.max(0.5, (now - this.leaseStart) / 1000);
    const used = this.usedInLease / seconds;
    return {
      id: this.id,
      host: hostname(),
      pid: process.pid,
      ...this.opts.holder,
      weight: this.opts.weight,
      // Held back during the lease: all it can get; else a little more than it used, so that it may grow.
      want: this.waitedInLease || this.waitingSince !== undefined || !this.last ? null : Math.max(1, used * 1.5),
      used,
      waited_ms: Math.round(this.waitedMs),
      ...(this.opts.max_rps !== undefined ? { max_rps: this.opts.max_rps } : {}),
      ...(this.opts.share !== undefined ? { share: this.opts.share } : {}),
      ...(this.refused !== undefined ? { refused: this.refused } : {}),
      ...(this.retryAfterMs !== undefined ? { retry_after_ms: this.retryAfterMs } : {}),
      ...(this.platformLimit !== undefined ? { platform_limit: this.platformLimit } : {}),
      ...(release ? { release: true } : {}),
    };
  }

  /** One round trip to the store, at most one at a time. */
  private renew(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return (this.asking ??= this.renewOnce().finally(() => {
      this.asking = undefined;
    }));
  }

  private async renewOnce(): Promise<void> {
    const clock = this.opts.clock;
    const sent = clock.ms();
    const ask = this.ask();
    this.refused = this.retryAfterMs = undefined;
    let grant: Grant;
    try {
      grant = await this.opts.store.lease(ask);
    } catch (e) {
      return this.fallBack(sent, e);
    }
    if (this.closed) return;
    if (this.fallback) this.opts.debug?.(`budget: ${this.opts.store.name} answers again: coordinated again`);
    this.fallback = false;
    this.last = grant;
    this.generation = grant.generation;
    this.usedInLease = 0;
    this.waitedInLease = false;
    this.leaseStart = sent;
    // The lease's times count from when the ask was sent: the store answered some time after.
    this.endsAt = sent + grant.forMs;
    this.renewAt = sent + grant.renewInMs;
    // A probe lets this process's first request go at once: its answer tells the fleet the platform's limit.
    const probeStart = !!grant.probe && grant.rate > 0 && !this.probed;
    this.probed ||= probeStart;
    this.setRate(grant.rate, clock.ms(), probeStart);
    // The platform's limit learnt while this ask was on its way: the grant did not know it.
    if (this.platformLimit !== ask.platform_limit && this.wantsLimit) this.endsAt = -Infinity;
    this.opts.debug?.(
      `budget: ${Number.isFinite(grant.rate) ? grant.rate.toFixed(1) : 'no limit'} requests/s for ${grant.forMs} ms (fleet ceiling ${Number.isFinite(grant.ceiling) ? grant.ceiling.toFixed(1) : 'none'})`,
    );
    this.schedule(grant.renewInMs - (clock.ms() - sent));
  }

  private fallBack(sent: number, e: unknown): void {
    const rate = fallbackRate(this.last, this.opts.weight, this.opts.max_rps);
    if (!this.warned) {
      this.warned = true;
      this.opts.warn(
        `warning: the API budget's store ${this.opts.store.name} cannot be reached (${errorLine(e)}): pacing alone at ${Number.isFinite(rate) ? `${rate.toFixed(1)} requests/s` : 'no budget rate'} (this process's part of the last budget seen) until it answers again`,
      );
    }
    this.fallback = true;
    this.setRate(rate, this.opts.clock.ms());
    this.endsAt = Infinity;
    this.renewAt = sent + LEASE_MS;
    this.schedule(LEASE_MS);
  }

  private setRate(rate: number, now: number, startNow = false): void {
    this.bucket.refill(now, this.rate);
    this.rate = rate;
    this.bucket.keepAtMost(now, 1);
    if (startNow) this.bucket.saveOne();
    this.onGrant();
  }

  /**
   * The next renewal. It keeps the process alive (requests may be waiting for it); a run with nothing left to send
   * lets its lease end, and close() cancels it.
   */
  private schedule(ms: number): void {
    this.cancelRenewal();
    if (this.closed) return;
    this.cancelRenewal = this.opts.clock.after(Math.max(1, ms), () => {
      if (this.usedInLease > 0 || this.waitingSince !== undefined || this.fallback) void this.renew();
    });
  }

  /** The run is done: the lease ends now (its rate goes back to the others), and the store is closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.asking?.catch(() => {});
    // After the renewal in flight, which set the next one: a timer left would keep the process alive past its end.
    this.cancelRenewal();
    if (this.last && !this.fallback) await this.opts.store.lease(this.ask(true)).catch(() => {});
    await this.opts.store.close().catch(() => {});
  }
}

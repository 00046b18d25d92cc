// When a request may start: one limiter per client (per run), which every request of every lane passes. The
// platform limits the rate per endpoint, per service and globally, without publishing the numbers, and each 429 it
// answers costs a Retry-After wait and counts against the customer; so requests are paced to fit instead of each
// finding the limit on its own:
// - a window of requests on the wire (AIMD): --concurrency at first, halved by a 429 (once per round of requests),
//   one more after each window's worth of answers without one, never above --concurrency or below 1;
// - a pause: a 429 holds back the requests of its limit (all requests, when the answer did not name its limit and
//   the endpoint family's 429s do not show it its own) for as long as its Retry-After says;
// - the platform's own numbers when it sends X-RateLimit-* headers (quota.ts): a request starts only when the
//   estimated remaining allowance has room for it;
// - without them, a rate learnt from the 429s themselves (pace.ts): starts are paced to just below what the platform
//   accepted between two 429s, probing upward while none comes; and per endpoint family, the rate of a family the
//   platform limits on its own (endpoint-rates.ts), so that requests it refused together come back one at a time;
// - --max-rps N: at most N requests reach the platform in any one second, as the platform counts them. It receives a
//   request some time between its start and its answer, so a request counts from its start until one second after
//   its answer: a new one starts only while fewer than N count. (Counting starts alone, a platform that stalled for a
//   moment would count a second's requests and the burst that came late in one second.)
// - the fleet's budget (budget/gate.ts), when the project file gives one: the rate this process leased from the
//   bucket every process of the platform shares; it learns what this limiter learns (429s, the published limit).
// The limiter only delays starts: it never drops, repeats or reorders a write's attempts (the client decides those).
import type { IncomingHttpHeaders } from 'node:http';
import { EndpointRates } from './endpoint-rates.js';
import { LearntRate } from './pace.js';
import { familyOf, MAX_TIMER_MS, Quotas, readRateHeaders, type Quota, type Started } from './quota.js';
import { systemClock } from '../util/clock.js';
import type { Clock } from '../types.js';
import type { BudgetGate } from '../budget/gate.js';

export interface LimiterOptions {
  /** the most requests on the wire */
  concurrency: number;
  /** the most request starts in any one second */
  maxRps?: number;
  debug?: (line: string) => void;
  /** the run's clock (the real one by default) */
  clock?: Clock;
  /** the fleet's budget, when one is configured */
  budget?: BudgetGate;
}

/** A started request: returned to `settle` with its answer. */
export interface Ticket extends Started {
  family: string;
  generation: number;
  /** when it started (ms, monotonic) */
  startedAt: number;
}

/** The run's deadline passed while the request waited for its turn: it was never sent. */
export class NotStarted extends Error {}

/** The platform asked for a pause longer than a timer holds: no request starts any more (ApiError code below). */
export class PauseTooLong extends Error {}
export const PAUSE_TOO_LONG = 'pause_too_long';

interface Waiter {
  family: string;
  resolve: (t: Ticket) => void;
  reject: (e: Error) => void;
}

export class Limiter {
  /** requests allowed on the wire now */
  window: number;
  /** the requests on the wire */
  private readonly onWire = new Set<Ticket>();
  /** requests started so far */
  private started = 0;
  private answeredInWindow = 0;
  /** moves on with each halving: a 429 to a request started before it is news already acted on */
  private generation = 0;
  /** a 429 without a named limit holds back every request until then */
  private pausedUntil = 0;
  private readonly quotas = new Quotas();
  /** the rate learnt from 429s that named no limit */
  readonly learnt = new LearntRate();
  /** the rates of endpoint families limited on their own, learnt from their 429s */
  readonly endpoints = new EndpointRates();
  /** when requests were answered within the last second, oldest first from `oldest` (for --max-rps) */
  private readonly answeredAt: number[] = [];
  private oldest = 0;
  private readonly queue: Waiter[] = [];
  private cancelTimer = () => {};
  private readonly clock: Clock;
  private readonly now: () => number;
  /** why no request starts any more (a pause past the run's deadline) */
  private stopped?: PauseTooLong;

  constructor(private readonly opts: LimiterOptions) {
    this.window = opts.concurrency;
    this.clock = opts.clock ?? systemClock;
    this.now = () => this.clock.ms();
    if (opts.budget) opts.budget.onGrant = () => this.pump();
  }

  /** A ticket to start a request to `path`: at once when nothing holds it back, else when its turn comes. */
  acquire(path: string): Ticket | Promise<Ticket> {
    if (this.stopped) throw this.stopped;
    const family = familyOf(path);
    if (!this.queue.length) {
      const ticket = this.tryStart(family, this.now());
      if (typeof ticket !== 'number') return ticket;
    }
    return new Promise<Ticket>((resolve, reject) => {
      this.queue.push({ family, resolve, reject });
      this.pump();
    });
  }

  /** No request starts any more: those waiting for their turn, and any asked for later, are refused with `why`. */
  private stop(why: string): void {
    this.stopped = new PauseTooLong(why);
    this.cancelTimer();
    for (const w of this.queue.splice(0)) w.reject(this.stopped);
  }

  /** The run is out of time: every request still waiting for its turn is refused, never sent. */
  abandonWaiting(): void {
    this.cancelTimer();
    for (const w of this.queue.splice(0))
      w.reject(new NotStarted('the run passed its --deadline while the request waited for its turn; it was not sent'));
  }

  /**
   * The request's answer (status and headers; none when no answer came): its slot is freed, the window and the
   * pauses follow a 429, and rate-limit headers teach the limiter the platform's numbers.
   */
  settle(ticket: Ticket, answer?: { status: number; headers: IncomingHttpHeaders; retryAfterMs?: number }): void {
    const now = this.now();
    this.onWire.delete(ticket);
    if (this.opts.maxRps !== undefined) this.answeredAt.push(now);
    for (const p of ticket.places) p.quota.answered(now);
    if (answer) {
      const h = readRateHeaders(answer.headers);
      // A pause past what a timer holds (about 24 days) is no pause to wait for; a shorter one past the run's
      // --deadline is waited for until the deadline refuses what still waits.
      if (h?.resetMs !== undefined && h.resetMs > MAX_TIMER_MS) {
        this.stop(
          `the platform asks to wait ${Math.round(h.resetMs / 1000)} s (X-RateLimit-Reset: ${String(answer.headers['x-ratelimit-reset'])}), more than any run waits: no request is sent any more`,
        );
        return;
      }
      let quota: Quota | undefined;
      if (h) {
        this.opts.budget?.limitSeen(h.limit);
        quota = this.quotas.quotaOf(ticket.family, h, this.started, (q) => {
          for (const t of this.onWire) t.places.push(q.adopt());
          this.opts.debug?.(`rate limit: the platform allows ${q.limit} requests (X-RateLimit-Limit); pacing to it`);
        });
        quota.observe(h, ticket, now);
      }
      if (answer.status === 429) this.refused(ticket, quota, answer.retryAfterMs ?? h?.resetMs);
      else {
        this.learnt.accepted(now);
        this.endpoints.accepted(ticket.family, now);
        if (++this.answeredInWindow >= this.window && this.window < this.opts.concurrency) {
          this.window++;
          this.answeredInWindow = 0;
        }
      }
    }
    this.pump();
  }

  private refused(ticket: Ticket, quota: Quota | undefined, waitMs: number | undefined): void {
    const now = this.now();
    // A limit the answer did not name: the endpoint family's own, once its 429s tell it (endpoint-rates.ts), else
    // the run's, its rate learnt from what the platform accepted (pace.ts).
    const family = quota ? undefined : this.endpoints.refused(ticket.family, now, ticket.startedAt);
    if (waitMs !== undefined) {
      if (quota) quota.pausedUntil = Math.max(quota.pausedUntil, now + waitMs);
      else if (family?.own) this.endpoints.pause(ticket.family, now + waitMs);
      else this.pausedUntil = Math.max(this.pausedUntil, now + waitMs);
    }
    this.answeredInWindow = 0;
    if (family?.cut !== undefined)
      this.opts.debug?.(
        `rate limited (429) on ${ticket.family} alone: pacing it to ${family.cut.toFixed(2)} requests/s${family.own ? ', the others going on' : ''}`,
      );
    // The fleet is told of every 429 but those of an endpoint limited on its own: they say nothing of its rate.
    if (!family?.own) this.opts.budget?.refused429(waitMs);
    const rate = quota || family?.own ? undefined : this.learnt.refused(now, ticket.startedAt);
    if (rate !== undefined)
      this.opts.debug?.(`rate limited (429) without a published limit: pacing to ${rate.toFixed(1)} requests/s`);
    // A family's own limit leaves the others' window as it is: they were accepted while it was refused.
    if (family?.own || ticket.generation !== this.generation) return;
    this.generation++;
    this.window = Math.max(1, Math.floor(this.window / 2));
    this.opts.debug?.(
      `rate limited (429): ${this.window} request${this.window === 1 ? '' : 's'} on the wire at most${waitMs !== undefined ? `, pausing ${Math.round(waitMs)} ms` : ''}`,
    );
  }

  /** A ticket, or how many ms until one may be had (Infinity: until a request on the wire is answered). */
  private tryStart(family: string, now: number): Ticket | number {
    if (this.onWire.size >= this.window) return Infinity;
    let wait = this.pausedUntil - now;
    if (this.opts.maxRps !== undefined) wait = Math.max(wait, this.maxRpsWait(now, this.opts.maxRps));
    const quotas = this.quotas.route(family);
    for (const q of quotas) wait = Math.max(wait, q.waitMs(now));
    wait = Math.max(wait, this.learnt.waitMs(now), this.endpoints.waitMs(family, now));
    if (wait > 0) return wait;
    // Asked last: a wait it answers is the budget's alone (the run's report counts it).
    const budget = this.opts.budget?.waitMs(now) ?? 0;
    if (budget > 0) return budget;
    this.opts.budget?.take(now);
    this.learnt.take(now);
    this.endpoints.take(family, now);
    const ticket = {
      family,
      places: quotas.map((q) => q.start(now)),
      seq: ++this.started,
      before: this.onWire.size,
      generation: this.generation,
      startedAt: now,
    };
    this.onWire.add(ticket);
    return ticket;
  }

  /** Milliseconds until fewer than `max` requests count for the last second: those on the wire, those answered in it. */
  private maxRpsWait(now: number, max: number): number {
    const ends = this.answeredAt;
    while (this.oldest < ends.length && ends[this.oldest] <= now - 1000) this.oldest++;
    if (this.oldest > 1024 && this.oldest * 2 > ends.length) {
      ends.splice(0, this.oldest);
      this.oldest = 0;
    }
    const counted = this.onWire.size + ends.length - this.oldest;
    if (counted < max) return 0;
    // The oldest answer stops counting a second after it came; with none in the second, the next answer decides.
    return this.oldest < ends.length ? ends[this.oldest] + 1000 - now : Infinity;
  }

  /** Starts every waiter that may start, in order, and sets one timer for the soonest of the rest. */
  pump(): void {
    this.cancelTimer();
    const now = this.now();
    let soonest = Infinity;
    for (let i = 0; i < this.queue.length;) {
      const w = this.queue[i];
      const ticket = this.tryStart(w.family, now);
      if (typeof ticket !== 'number') {
        this.queue.splice(i, 1);
        w.resolve(ticket);
        continue;
      }
      if (ticket === Infinity && this.onWire.size >= this.window) break; // no slot for anyone until an answer
      soonest = Math.min(soonest, ticket);
      i++;
    }
    if (soonest < Infinity)
      this.cancelTimer = this.clock.after(Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(soonest))), () => this.pump());
  }
}

// When a request may start: one limiter per client (per run), which every request of every lane passes. The
// platform limits the rate per endpoint, per service and globally, without publishing the numbers, and each 429 it
// answers costs a Retry-After wait and counts against the customer; so requests are paced to fit instead of each
// finding the limit on its own:
// - a window of requests on the wire (AIMD): --concurrency at first, halved by a 429 (once per round of requests),
//   one more after each window's worth of answers without one, never above --concurrency or below 1;
// - a pause: a 429 holds back the requests of its limit (all requests, unless the endpoint family's 429s show it a
//   limit of its own) for as long as its Retry-After says;
// - a rate learnt from the 429s themselves (pace.ts): starts are paced to just below what the platform
//   accepted between two 429s, probing upward while none comes; and per endpoint family, the rate of a family the
//   platform limits on its own (endpoint-rates.ts), so that requests it refused together come back one at a time;
// - --max-rps N: at most N requests reach the platform in any one second, as the platform counts them. It receives a
//   request some time between its start and its answer, so a request counts from its start until one second after
//   its answer: a new one starts only while fewer than N count. (Counting starts alone, a platform that stalled for a
//   moment would count a second's requests and the burst that came late in one second.)
// - the fleet's budget (budget/gate.ts), when the project file gives one: the rate this process leased from the
//   bucket every process of the platform shares, asked last; it hears what this limiter hears (429s, and the limit a
//   platform publishes in X-RateLimit-Limit, which a budget's `share` is of).
// The limiter only delays starts: it never drops, repeats or reorders a write's attempts (the client decides those).
import { EndpointRates, familyOf } from './endpoint-rates.js';
import { LearntRate } from './pace.js';
import { MAX_TIMER_MS } from './retry-after.js';
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
export interface Ticket {
  family: string;
  generation: number;
  /** when it started (ms, monotonic) */
  startedAt: number;
}

/** The run's deadline passed while the request waited for its turn: it was never sent. */
export class NotStarted extends Error {}

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
  private answeredInWindow = 0;
  /** moves on with each halving: a 429 to a request started before it is news already acted on */
  private generation = 0;
  /** a 429 to a shared limit holds back every request until then */
  private pausedUntil = 0;
  /** the rate learnt from 429s to a shared limit */
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

  constructor(private readonly opts: LimiterOptions) {
    this.window = opts.concurrency;
    this.clock = opts.clock ?? systemClock;
    this.now = () => this.clock.ms();
    if (opts.budget) opts.budget.onGrant = () => this.pump();
  }

  /** A ticket to start a request to `path`: at once when nothing holds it back, else when its turn comes. */
  acquire(path: string): Ticket | Promise<Ticket> {
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

  /** The run is out of time: every request still waiting for its turn is refused, never sent. */
  abandonWaiting(): void {
    this.cancelTimer();
    for (const w of this.queue.splice(0))
      w.reject(new NotStarted('the run passed its --deadline while the request waited for its turn; it was not sent'));
  }

  /**
   * The request's answer (its status, the Retry-After it asked for and the limit it published; none when no answer
   * came): its slot is freed, and the window, the pauses and the learnt rates follow a 429.
   */
  settle(ticket: Ticket, answer?: { status: number; retryAfterMs?: number; limit?: number }): void {
    const now = this.now();
    this.onWire.delete(ticket);
    if (this.opts.maxRps !== undefined) this.answeredAt.push(now);
    // The budget hears of the platform's limit, or that the answer carried none: a lease granted without it ends.
    if (answer && this.opts.budget?.wantsLimit) this.opts.budget.limitSeen(answer.limit);
    if (answer) {
      if (answer.status === 429) this.refused(ticket, answer.retryAfterMs);
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

  private refused(ticket: Ticket, waitMs: number | undefined): void {
    const now = this.now();
    // The endpoint family's own limit, once its 429s tell it (endpoint-rates.ts), else the run's, its rate learnt
    // from what the platform accepted (pace.ts).
    const family = this.endpoints.refused(ticket.family, now, ticket.startedAt);
    if (waitMs !== undefined) {
      if (family.own) this.endpoints.pause(ticket.family, now + waitMs);
      else this.pausedUntil = Math.max(this.pausedUntil, now + waitMs);
    }
    this.answeredInWindow = 0;
    if (family.cut !== undefined)
      this.opts.debug?.(
        `rate limited (429) on ${ticket.family} alone: pacing it to ${family.cut.toFixed(2)} requests/s${family.own ? ', the others going on' : ''}`,
      );
    // The fleet is told of every 429 but those of an endpoint limited on its own: they say nothing of its rate.
    if (!family.own) this.opts.budget?.refused429(waitMs);
    const rate = family.own ? undefined : this.learnt.refused(now, ticket.startedAt);
    if (rate !== undefined)
      this.opts.debug?.(`rate limited (429) without a published limit: pacing to ${rate.toFixed(1)} requests/s`);
    // A family's own limit leaves the others' window as it is: they were accepted while it was refused.
    if (family.own || ticket.generation !== this.generation) return;
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
    wait = Math.max(wait, this.learnt.waitMs(now), this.endpoints.waitMs(family, now));
    if (wait > 0) return wait;
    // Asked last: a wait it answers is the budget's alone (the run's report counts it).
    const budget = this.opts.budget?.waitMs(now) ?? 0;
    if (budget > 0) return budget;
    this.opts.budget?.take(now);
    this.learnt.take(now);
    this.endpoints.take(family, now);
    const ticket = { family, generation: this.generation, startedAt: now };
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

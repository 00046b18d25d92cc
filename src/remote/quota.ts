// What the platform says about its rate limits, from the X-RateLimit-* headers of its answers, kept so that requests
// can be paced to fit before the platform has to refuse one. Nothing here is published for the live platform, so
// the headers are read in their common form and every value is checked: a missing or odd header is no knowledge.
import type { IncomingHttpHeaders } from 'node:http';

/** One answer's rate-limit headers. */
export interface RateHeaders {
  /** X-RateLimit-Limit: requests per window */
  limit: number;
  /** X-RateLimit-Remaining: requests that may still be sent now */
  remaining: number;
  /** X-RateLimit-Reset, as milliseconds from now: when the allowance is whole again */
  resetMs?: number;
}

/** The longest a timer holds (Node's setTimeout takes a larger delay as 1 ms, and warns): no pause is longer. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

const header = (h: IncomingHttpHeaders, name: string) => {
  const v = h[name];
  const text = Array.isArray(v) ? v[0] : v;
  if (text === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(text)) return undefined;
  return Number(text);
};

/** An X-RateLimit-Reset above these is a time (epoch seconds or milliseconds, as some platforms send), not seconds. */
const EPOCH_SECONDS = 1e9;
const EPOCH_MS = 1e12;

/** The headers, or undefined when the answer does not carry a usable limit and remaining count. */
export function readRateHeaders(h: IncomingHttpHeaders, epochNow = Date.now()): RateHeaders | undefined {
  const limit = header(h, 'x-ratelimit-limit');
  const remaining = header(h, 'x-ratelimit-remaining');
  if (limit === undefined || remaining === undefined || limit < 1 || !Number.isSafeInteger(Math.floor(limit)))
    return undefined;
  const reset = header(h, 'x-ratelimit-reset');
  const resetMs =
    reset === undefined
      ? undefined
      : reset > EPOCH_MS
        ? reset - epochNow
        : reset > EPOCH_SECONDS
          ? reset * 1000 - epochNow
          : reset * 1000;
  return {
    limit: Math.floor(limit),
    remaining: Math.min(Math.floor(remaining), limit),
    ...(resetMs !== undefined && resetMs >= 0 ? { resetMs } : {}),
  };
}

/** Retry-After, in seconds or as an HTTP date, as milliseconds from now; never more than `capMs`. */
export function retryAfterMs(h: IncomingHttpHeaders, capMs: number, epochNow = Date.now()): number | undefined {
  const seconds = header(h, 'retry-after');
  const raw = h['retry-after'];
  const text = Array.isArray(raw) ? raw[0] : raw;
  const ms = seconds !== undefined ? seconds * 1000 : text ? Date.parse(text) - epochNow : NaN;
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), capMs) : undefined;
}

/** Where a request stood with a quota when it started: for reading the answer's remaining count. */
export interface Place {
  quota: Quota;
  /** the quota's start count, this request included; 0: started before the quota was learned */
  seq: number;
}

/** A started request, as the quotas need to know it. */
export interface Started {
  /** the quotas it went through */
  places: Place[];
  /** the client's start count, this request included */
  seq: number;
  /** requests on the wire when it started: each may reach the platform after it, unseen by its remaining count */
  before: number;
}

/**
 * One of the platform's limits, known by its X-RateLimit-Limit, mirrored as the platform's own token bucket: the
 * allowance refills at limit per window (the window is the longest reset seen, at least one second: a limit without
 * a reset is per second), and each request started takes one. It is kept low, never above the platform's:
 * - it is full at the limit less the requests on the wire: those may not have reached the platform yet, and a full
 *   bucket there takes no refill for them;
 * - an answer's remaining count is read as of its answer (the platform counted at some moment before answering),
 *   less every request that may have reached the platform after the answered one (those on the wire when it
 *   started, and those started since); the higher of that and the running estimate is kept.
 */
export class Quota {
  windowMs = 1000;
  /** requests started under this quota */
  started = 0;
  /** of those, on the wire */
  onWire = 0;
  /** a 429 said to wait until then (performance.now() time) */
  pausedUntil = 0;
  /** the allowance estimated at `at` */
  private estimate?: { tokens: number; at: number };

  /** `bornAt`: the client's start count when the quota was learned; requests up to it went through none */
  constructor(
    readonly limit: number,
    private readonly bornAt: number,
  ) {}

  /** The requests the platform would take now, as estimated. */
  available(now: number): number {
    const e = this.estimate;
    return e ? Math.min(this.limit - this.onWire, e.tokens + ((now - e.at) * this.limit) / this.windowMs) : Infinity;
  }

  /** Milliseconds until one more request fits (0: now). */
  waitMs(now: number): number {
    const short = 1 - this.available(now);
    return Math.max(this.pausedUntil - now, short > 0 ? (short * this.windowMs) / this.limit : 0, 0);
  }

  /** The estimate as it stands now, then `change`d (the refill up to now is counted under the cap until now). */
  private rebase(now: number, change: number): void {
    if (this.estimate) this.estimate = { tokens: this.available(now) + change, at: now };
  }

  /** A request starts now: it takes one. */
  start(now: number): Place {
    this.rebase(now, -1);
    this.onWire++;
    return { quota: this, seq: ++this.started };
  }

  /** A request started before the quota was learned, still on the wire: it may yet reach the platform. */
  adopt(): Place {
    this.onWire++;
    return { quota: this, seq: 0 };
  }

  /** A request's answer came: it has reached the platform. */
  answered(now: number): void {
    this.rebase(now, 0);
    this.onWire--;
  }

  /** What the answer to `r` said, read at `now` (after `answered`). */
  observe(h: RateHeaders, r: Started, now: number): void {
    if (h.resetMs !== undefined) this.windowMs = Math.max(this.windowMs, Math.ceil(h.resetMs / 1000) * 1000);
    const seq = r.places.find((p) => p.quota === this)?.seq ?? 0;
    // A request from before the quota was learned saw none of its starts, nor those of the others from before it.
    const unseen = r.before + (seq ? 0 : Math.max(0, this.bornAt - r.seq)) + this.started - seq;
    const read = Math.min(this.limit - this.onWire, h.remaining - unseen);
    this.estimate = { tokens: this.estimate ? Math.max(read, this.available(now)) : read, at: now };
  }
}

/**
 * The quotas learned so far, and which of them each endpoint family (the first two path segments: /cms/banners)
 * answered under. A family not heard from yet goes through every known quota, so that it is paced from its first
 * request (a global limit covers it too); once answered, only through those its answers named.
 */
export class Quotas {
  private readonly byLimit = new Map<number, Quota>();
  private readonly byFamily = new Map<string, Quota[]>();
  private all: Quota[] = [];

  route(family: string): Quota[] {
    return this.byFamily.get(family) ?? this.all;
  }

  /** The quota an answer names, learned now (after `started` requests) if new, and then `learned` is told. */
  quotaOf(family: string, h: RateHeaders, started: number, learned: (q: Quota) => void): Quota {
    let q = this.byLimit.get(h.limit);
    if (!q) {
      q = new Quota(h.limit, started);
      this.byLimit.set(h.limit, q);
      this.all = [...this.all, q];
      learned(q);
    }
    const mine = this.byFamily.get(family) ?? [];
    if (!mine.includes(q)) this.byFamily.set(family, [...mine, q]);
    return q;
  }
}

/** The endpoint family of a path: its first two segments (`/cms/banners/v1/b1` is `/cms/banners`). */
export function familyOf(path: string): string {
  const second = path.indexOf('/', 1);
  const third = second < 0 ? -1 : path.indexOf('/', second + 1);
  const end = third < 0 ? path.length : third;
  const q = path.indexOf('?');
  return path.slice(0, q >= 0 && q < end ? q : end);
}

// The emulator's rate limits (--rate-limit): token buckets, one for every request and one per path prefix, as the
// platform limits per endpoint, per service and globally. A bucket holds at most RPS tokens (a burst of one second's
// worth) and refills RPS tokens a second, continuously. A request takes one token from every bucket whose prefix it
// starts with, or, when any of them is empty, none: it is refused with 429 before it is handled, and not counted.

/** One limit: `prefix` '' is every request. */
export interface RateRule {
  prefix: string;
  rps: number;
}

/** Parses `200` (every request) or `/cms/=50` (requests whose path starts with /cms/); throws a message when bad. */
export function parseRateRule(raw: string): RateRule {
  const eq = raw.lastIndexOf('=');
  const prefix = eq < 0 ? '' : raw.slice(0, eq);
  const rps = eq < 0 ? raw : raw.slice(eq + 1);
  if (eq >= 0 && !prefix.startsWith('/'))
    throw new Error(
      `--rate-limit takes RPS or /PATH-PREFIX=RPS (the prefix starting with /), not ${JSON.stringify(raw)}`,
    );
  if (!/^\d+$/.test(rps) || Number(rps) < 1 || Number(rps) > 1_000_000)
    throw new Error(
      `--rate-limit needs a whole number of requests per second from 1 to 1000000, not ${JSON.stringify(raw)}`,
    );
  return { prefix, rps: Number(rps) };
}

/** The rules of several --rate-limit flags: one limit per prefix (and one for every request). */
export function parseRateRules(raws: readonly string[]): RateRule[] {
  const rules = raws.map(parseRateRule);
  const twice = rules.find((r, i) => rules.findIndex((o) => o.prefix === r.prefix) !== i);
  if (twice)
    throw new Error(
      twice.prefix ? `--rate-limit ${twice.prefix} is given twice` : '--rate-limit for every request is given twice',
    );
  return rules;
}

/** A token bucket on a clock in milliseconds. */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    readonly rps: number,
    now: number,
  ) {
    this.tokens = rps;
    this.at = now;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.rps, this.tokens + ((now - this.at) * this.rps) / 1000);
    this.at = now;
  }

  /** Whole tokens left now. */
  remaining(now: number): number {
    this.refill(now);
    return Math.floor(this.tokens);
  }

  /** Takes one token if there is one. */
  take(now: number): boolean {
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Milliseconds until the bucket holds one whole token (0 when it does). */
  msUntilToken(now: number): number {
    this.refill(now);
    return this.tokens >= 1 ? 0 : ((1 - this.tokens) * 1000) / this.rps;
  }

  /** Milliseconds until the bucket is full again. */
  msUntilFull(now: number): number {
    this.refill(now);
    return ((this.rps - this.tokens) * 1000) / this.rps;
  }
}

/** What the limits say of one request: admitted or not, and the headers that tell the client. */
export interface Admission {
  admitted: boolean;
  headers: Record<string, string>;
}

const seconds = (ms: number) => String(Math.ceil(ms / 1000 - 1e-9));

export class RateLimits {
  private readonly buckets: { prefix: string; bucket: TokenBucket }[];

  constructor(
    rules: readonly RateRule[],
    private readonly now: () => number = () => performance.now(),
  ) {
    const t = now();
    this.buckets = rules.map((r) => ({ prefix: r.prefix, bucket: new TokenBucket(r.rps, t) }));
  }

  /**
   * Admits a request to `pathname` or refuses it. The headers describe the bucket that binds: the one with the
   * fewest tokens left (X-RateLimit-Limit its RPS, X-RateLimit-Remaining its whole tokens, X-RateLimit-Reset the
   * whole seconds until it is full again); a refusal adds Retry-After, the whole seconds until it has a token.
   * A path no limit covers gets no headers.
   */
  admit(pathname: string): Admission {
    const t = this.now();
    const mine = this.buckets.filter((b) => pathname.startsWith(b.prefix)).map((b) => b.bucket);
    if (!mine.length) return { admitted: true, headers: {} };
    const empty = mine.filter((b) => b.msUntilToken(t) > 0);
    if (empty.length) {
      const binding = empty.reduce((a, b) => (b.msUntilToken(t) > a.msUntilToken(t) ? b : a));
      return {
        admitted: false,
        headers: { ...headersOf(binding, t), 'retry-after': seconds(binding.msUntilToken(t)) },
      };
    }
    for (const b of mine) b.take(t);
    const binding = mine.reduce((a, b) =>
      b.remaining(t) < a.remaining(t) || (b.remaining(t) === a.remaining(t) && b.rps < a.rps) ? b : a,
    );
    return { admitted: true, headers: headersOf(binding, t) };
  }
}

function headersOf(b: TokenBucket, t: number): Record<string, string> {
  return {
    'x-ratelimit-limit': String(b.rps),
    'x-ratelimit-remaining': String(b.remaining(t)),
    'x-ratelimit-reset': seconds(b.msUntilFull(t)),
  };
}

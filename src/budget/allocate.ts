// The fleet's bucket, as one small document every process of a platform reads and rewrites (a row in PostgreSQL, a
// file beside a file state), and the one rule that hands out its rate (pure: table-tested, the stores only carry it).
// A process does not take tokens one request at a time: it leases a rate for a short time (renewed after 2-6 s,
// about once per REQUESTS_PER_LEASE requests; one round trip each), and spends it locally (gate.ts). A lease is a
// batch of rate × its length tokens that must be spent before it ends:
// - the fleet's ceiling is the tightest of: every holder's max_rps, every holder's share of the limit the platform
//   publishes (X-RateLimit-Limit), and the rate the fleet learnt from 429s; each at HEADROOM, so that the network's
//   jitter, which bunches requests on their way, does not push a second over the budget;
// - the ceiling is shared by weight (apply > agent > plan) among the holders whose lease has not ended, water-filled:
//   a holder that asks for less than its share (it is nearly done) leaves the rest to the others;
// - a grant never takes what others hold: it is at most the ceiling less their outstanding grants, so the grants
//   add up to the ceiling at most at every moment. A holder over its share shrinks at its next renewal; the newcomer
//   it held back is told to ask again then;
// - a lease that ends unrenewed (its process died, or is done) is dropped: its rate goes back to the others;
// - a 429 that named no limit, reported under the bucket's current generation, cuts the learnt rate to CUT of what
//   the fleet was sending and starts a new generation (later reports of the same overshoot are news acted on); the
//   learnt rate grows back by GROWTH a second, for every holder alike; Retry-After pauses every grant until then;
// - a share is of a limit only an answer tells: until a process reports the platform's X-RateLimit-Limit (or that
//   its answers carry none), the fleet's ceiling is PROBE_RPS, and its leases are renewed every PROBE_RENEW_MS, so
//   that the first answer's news reaches the processes held back meanwhile in a fraction of a second.

/** A lease is renewed after this long at least, and ends a margin after its renewal was due. */
export const LEASE_MS = 3000;
/** A lease is renewed about once per this many requests (the round trips' cost), after RENEW_MAX_MS at most. */
const REQUESTS_PER_LEASE = 100;
const RENEW_MAX_MS = 6000;
/** How long after its renewal was due a lease ends: room for the round trip. */
export const MARGIN_MS = 1000;
/** The share of a configured limit the fleet is paced at (room for the network's jitter). */
export const HEADROOM = 0.95;
/** A 429 cuts the learnt rate to this share of what the fleet was sending. */
export const CUT = 0.85;
/** The learnt rate grows by this share of itself per second without a 429. */
export const GROWTH = 0.02;
/** The fewest requests a second the learnt rate is cut to. */
const MIN_RATE = 1;
/** The fleet's ceiling while a share's limit is not known yet: one request goes, and its answer tells the limit. */
export const PROBE_RPS = 1;
/** How soon every holder asks again while the fleet probes (the answer comes within a round trip to the platform). */
export const PROBE_RENEW_MS = 200;
/**
 * Each holder renews up to this share of a lease early, by its id: processes started together would otherwise renew
 * in step for ever, and n compare-and-sets at one moment cost n(n+1)/2 round trips (pg-store.ts).
 */
const SPREAD = 0.25;
/** How far after the first renewal of the others a holder held back asks again, at most (spread by its id). */
const REASK_SPREAD_MS = 200;

/** Where the holder `id` falls in [0, 1): the same for one holder at every lease, spread evenly over holders. */
export function spreadOf(id: string): number {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619) >>> 0;
  return (h % 1024) / 1024;
}

export type Role = 'apply' | 'agent' | 'plan';
/** The weights of the roles when the project file gives none: an apply is never starved by a crowd of plans. */
export const DEFAULT_WEIGHTS: Record<Role, number> = { apply: 4, agent: 2, plan: 1 };

/** Who holds a lease, as `budget status` shows them. */
export interface HolderInfo {
  host: string;
  pid: number;
  role: Role;
  configuration: string;
  environment: string;
}

export interface Holder extends HolderInfo {
  weight: number;
  /** requests a second granted (null: nothing limits the fleet) */
  rate: number | null;
  /** what it asked for (null: all it can get) */
  want: number | null;
  /** what it sent during its last lease, requests a second */
  used: number;
  /** when the lease ends (the store's clock, ms since the epoch) */
  until: number;
  since: number;
  max_rps?: number;
  share?: number;
  /** the run's waits on the budget so far, ms */
  waited_ms: number;
}

export interface BucketDoc {
  v: 1;
  /** the fleet's rate learnt from 429s, while it binds */
  learnt?: number;
  /** when the learnt rate was last grown */
  learnt_at?: number;
  generation: number;
  /** a Retry-After: no grant until then */
  paused_until?: number;
  /** the platform's published limit (X-RateLimit-Limit), as last reported; null: its answers carry none */
  platform_limit?: number | null;
  holders: Record<string, Holder>;
}

export interface LeaseAsk extends HolderInfo {
  id: string;
  weight: number;
  /** requests a second it could use (null: all it can get) */
  want: number | null;
  used: number;
  max_rps?: number;
  share?: number;
  waited_ms: number;
  /** a 429 naming no limit came to a request sent under this generation */
  refused?: number;
  retry_after_ms?: number;
  /** the limit its answers published (null: they carry none) */
  platform_limit?: number | null;
  /** the process is done: its lease ends now */
  release?: boolean;
}

export interface Grant {
  /** requests a second (Infinity: nothing limits the fleet) */
  rate: number;
  /** when the lease ends, ms on the store's clock from now */
  forMs: number;
  /** ask again after this long (sooner when held back by others' grants) */
  renewInMs: number;
  generation: number;
  /** the fleet's ceiling and the holders' weights, as the fallback needs them (gate.ts) */
  ceiling: number;
  weights: number;
  /** ms from now until a Retry-After ends (0: none) */
  pausedMs: number;
  /** the ceiling is the probe's: a share's limit is not known yet (the answers' X-RateLimit-Limit tells it) */
  probe?: true;
}

const rateOf = (r: number | null) => (r === null ? Infinity : r);
const stored = (r: number) => (Number.isFinite(r) ? r : null);

export const emptyBucket = (): BucketDoc => ({ v: 1, generation: 0, holders: {} });

/** A holder's share waits for the platform's limit: no process has said what the answers publish. */
export const probing = (doc: BucketDoc, holders: Iterable<Pick<Holder, 'share'>>) =>
  doc.platform_limit === undefined && [...holders].some((h) => h.share !== undefined);

/**
 * The tightest limit on the fleet: max_rps, share × the platform's limit (PROBE_RPS while not known; nothing when the
 * platform publishes none), the learnt rate (Infinity: none).
 */
export function ceilingOf(doc: BucketDoc, holders: Iterable<Pick<Holder, 'max_rps' | 'share'>>): number {
  let c = doc.learnt ?? Infinity;
  for (const h of holders) {
    if (h.max_rps !== undefined) c = Math.min(c, HEADROOM * h.max_rps);
    if (h.share === undefined || doc.platform_limit === null) continue;
    c = Math.min(c, doc.platform_limit === undefined ? PROBE_RPS : HEADROOM * h.share * doc.platform_limit);
  }
  return c;
}

/** Weighted water-filling of `capacity` over the holders' wants: each gets its want or its weight's part of what is left. */
export function fairShares(holders: Array<{ id: string; weight: number; want: number }>, capacity: number) {
  const out = new Map<string, number>();
  let left = capacity;
  let open = holders.filter((h) => h.weight > 0);
  for (;;) {
    const weights = open.reduce((s, h) => s + h.weight, 0);
    const satisfied = open.filter((h) => h.want <= (left * h.weight) / weights);
    if (!satisfied.length || !Number.isFinite(left)) {
      for (const h of open) out.set(h.id, Number.isFinite(left) ? (left * h.weight) / weights : h.want);
      return out;
    }
    for (const h of satisfied) {
      out.set(h.id, h.want);
      left -= h.want;
    }
    open = open.filter((h) => !satisfied.includes(h));
  }
}

/** The learnt rate grown for the time since it was last grown; dropped once it no longer binds. */
function grow(doc: BucketDoc, now: number, configured: number): void {
  if (doc.learnt === undefined) return;
  const seconds = Math.max(0, (now - (doc.learnt_at ?? now)) / 1000);
  doc.learnt *= (1 + GROWTH) ** seconds;
  doc.learnt_at = now;
  if (doc.learnt < configured) return;
  delete doc.learnt;
  delete doc.learnt_at;
}

/** What a 429 or a Retry-After reported under the current generation teaches the bucket. */
function learn(doc: BucketDoc, ask: LeaseAsk, now: number, fleetRate: number): void {
  // A process whose answers carried no limit does not undo one another process's answers published.
  if (ask.platform_limit !== undefined && (ask.platform_limit !== null || doc.platform_limit === undefined))
    doc.platform_limit = ask.platform_limit;
  if (ask.retry_after_ms) doc.paused_until = Math.max(doc.paused_until ?? 0, now + ask.retry_after_ms);
  if (ask.refused === undefined || ask.refused !== doc.generation) return;
  doc.generation++;
  doc.learnt = Math.max(MIN_RATE, CUT * Math.min(doc.learnt ?? Infinity, fleetRate));
  doc.learnt_at = now;
}

/** The ask applied to the bucket at `now` (the store's clock): the new document and the grant. */
export function allocate(
  before: BucketDoc | undefined,
  ask: LeaseAsk,
  now: number,
  leaseMs = LEASE_MS,
): { doc: BucketDoc; grant: Grant } {
  const doc: BucketDoc = structuredClone(before ?? emptyBucket());
  for (const [id, h] of Object.entries(doc.holders)) if (h.until <= now || id === ask.id) delete doc.holders[id];
  if (doc.paused_until !== undefined && doc.paused_until <= now) delete doc.paused_until;
  const others = Object.values(doc.holders);
  const me = { max_rps: ask.max_rps, share: ask.share };
  // What the fleet was sending when the platform refused: the rates its holders used in their last leases.
  const sending = [...others.map((h) => h.used), ask.used].reduce((a, b) => a + b, 0);
  learn(doc, ask, now, Math.max(MIN_RATE, sending));
  // What binds but for the learnt rate; a probe's ceiling is none (a share not known yet limits nothing here), or a
  // share joining would drop the rate the fleet learnt from 429s.
  const configured = ceilingOf({ ...doc, learnt: undefined, platform_limit: doc.platform_limit ?? null }, [
    ...others,
    me,
  ]);
  grow(doc, now, configured);
  const ceiling = ceilingOf(doc, [...others, me]);
  const weights = others.reduce((s, h) => s + h.weight, 0) + ask.weight;
  const pausedMs = Math.max(0, (doc.paused_until ?? now) - now);
  if (ask.release)
    return { doc, grant: { rate: 0, forMs: 0, renewInMs: 0, generation: doc.generation, ceiling, weights, pausedMs } };
  const held = others.reduce((s, h) => s + rateOf(h.rate), 0);
  const fair = fairShares(
    [
      ...Object.entries(doc.holders).map(([id, h]) => ({ id, weight: h.weight, want: rateOf(h.want) })),
      { id: ask.id, weight: ask.weight, want: rateOf(ask.want) },
    ],
    ceiling,
  ).get(ask.id)!;
  // With no ceiling nothing is held back (Infinity less a holder's Infinity would be NaN: a rate no start passes).
  const room = Number.isFinite(ceiling) ? ceiling - held : Infinity;
  const rate = pausedMs ? 0 : Math.max(0, Math.min(fair, room));
  // Held back by grants made before it came: ask again when the first of them is renewed.
  const shortOf = rate < fair * 0.9;
  const firstRenewal = Math.min(...others.map((h) => h.until - MARGIN_MS - now));
  // A slow holder renews less often: about one round trip per REQUESTS_PER_LEASE requests.
  const due = Number.isFinite(rate) && rate > 0 ? (REQUESTS_PER_LEASE * 1000) / rate : 0;
  const spread = spreadOf(ask.id);
  const steady = Math.min(RENEW_MAX_MS, Math.max(leaseMs - MARGIN_MS, due)) * (1 - SPREAD * spread);
  const probe = probing(doc, [...others, me]);
  const renewInMs = pausedMs
    ? pausedMs
    : probe
      ? PROBE_RENEW_MS * (1 - SPREAD * spread)
      : shortOf && others.length
        ? Math.min(steady, Math.max(100, firstRenewal + 50 + REASK_SPREAD_MS * spread))
        : steady;
  const forMs = renewInMs + MARGIN_MS;
  doc.holders[ask.id] = holderOf(ask, rate, now + forMs, before?.holders[ask.id]?.since ?? now);
  const grant: Grant = { rate, forMs, renewInMs, generation: doc.generation, ceiling, weights, pausedMs };
  return { doc, grant: probe ? { ...grant, probe: true } : grant };
}

/** The asking process's entry in the bucket: who it is, what it holds until `until`, and what it asked. */
function holderOf(ask: LeaseAsk, rate: number, until: number, since: number): BucketDoc['holders'][string] {
  return {
    host: ask.host,
    pid: ask.pid,
    role: ask.role,
    configuration: ask.configuration,
    environment: ask.environment,
    weight: ask.weight,
    rate: stored(rate),
    want: ask.want,
    used: ask.used,
    until,
    since,
    ...(ask.max_rps !== undefined ? { max_rps: ask.max_rps } : {}),
    ...(ask.share !== undefined ? { share: ask.share } : {}),
    waited_ms: ask.waited_ms,
  };
}

/** A stored document read back: anything that is not one is an empty bucket (a torn or foreign file). */
export function parseBucket(value: unknown): BucketDoc | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const d = value as BucketDoc;
  if (d.v !== 1 || typeof d.generation !== 'number' || !d.holders || typeof d.holders !== 'object') return undefined;
  return d;
}

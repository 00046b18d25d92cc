// The fleet's bucket in the state's database: one row per platform origin (migration 5, postgres-schema.ts), its
// document rewritten by compare-and-set on its version in one statement that also returns the row as it is when
// another process wrote first, and the server's clock (leases end on the database's time, the same for every
// runner whatever their own clocks say). So a lease is one round trip, and two when another process wrote between.
// Its own connection: a lease never waits behind a state write or the lock's confirmations.
import { UserError } from '../errors.js';
import type { BackendContext } from '../state/backend.js';
import { PgSession } from '../state/postgres-session.js';
import { BUDGETS_SINCE } from '../state/postgres-schema.js';
import type { PgLocation } from '../state/postgres-url.js';
import { allocate, parseBucket, type BucketDoc, type Grant, type LeaseAsk } from './allocate.js';
import type { BudgetStore } from './gate.js';

/** What a statement on a table or schema not made yet fails with (its SQLSTATE, as the session's error ends). */
const MISSING = /\((42P01|3F000)\)$/;
/** A lease not answered within this counts as the database unreachable (the process falls back, gate.ts). */
const QUERY_MS = 2000;
/** Compare-and-sets lost in a row before the store counts as unreachable: more than the processes that start together. */
const ATTEMPTS = 12;
/** What a release is answered (no lease). */
const released: Grant = { rate: 0, forMs: 0, renewInMs: 0, generation: 0, ceiling: Infinity, weights: 0, pausedMs: 0 };

type Row = { written: string | null; current: { version: number; document: unknown } | null; now: number };

export class PgBudgetStore implements BudgetStore {
  readonly name: string;
  private db: PgSession;
  private cached?: { version: number; doc?: BucketDoc };
  /** the database's clock less this machine's, as last seen (ms) */
  private offset = 0;
  private ready = false;
  /** round trips made, for the run's report */
  roundTrips = 0;

  constructor(
    private readonly loc: PgLocation,
    private readonly ctx: BackendContext,
    private readonly origin: string,
  ) {
    this.name = `the state database ${loc.shown}`;
    this.db = this.session();
  }

  private session(): PgSession {
    return new PgSession(this.loc, this.ctx, { queryTimeoutMs: QUERY_MS });
  }

  /** The bucket as it is, and the database's time (for `budget status`). */
  async read(): Promise<{ doc?: BucketDoc; now: number }> {
    if ((await this.db.ready(false)) < BUDGETS_SINCE) return { now: Date.now() };
    const [row] = await this.db.query<{ document: unknown; now: number }>(
      'reading the budget',
      `SELECT (SELECT document FROM ${this.db.t.budgets} WHERE origin = $1) AS document, extract(epoch FROM clock_timestamp()) * 1000 AS now`,
      [this.origin],
    );
    return { doc: parseBucket(row.document), now: Number(row.now) };
  }

  /** A lease; a connection that broke is given up, so that a database back again is reached on the next one. */
  async lease(ask: LeaseAsk): Promise<Grant> {
    try {
      return await this.leaseOnce(ask);
    } catch (e) {
      const broken = this.db;
      this.db = this.session();
      this.cached = undefined;
      this.ready = false;
      await broken.close().catch(() => {});
      throw e;
    }
  }

  /**
   * The first lease goes straight to the compare-and-set, as if the row were new: where it is not, the statement
   * returns it (and the database's clock) for the second; where the table is not made yet, it is made (migrations).
   */
  private async leaseOnce(ask: LeaseAsk): Promise<Grant> {
    if (ask.release && this.ready) return this.release(ask);
    if (!this.ready) {
      try {
        return await this.casLoop(ask, { version: 0 });
      } catch (e) {
        if (!MISSING.test((e as Error).message)) throw e;
        await this.db.ready(true);
      } finally {
        this.ready = true;
      }
    }
    return this.casLoop(ask, this.cached ?? { version: 0 });
  }

  private async casLoop(ask: LeaseAsk, from: { version: number; doc?: BucketDoc }): Promise<Grant> {
    this.cached = from;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const { doc, grant } = allocate(this.cached.doc, ask, Date.now() + this.offset);
      const sent = Date.now();
      const row = await this.write(this.cached.version, doc);
      this.clockSeen(row.now, sent);
      if (row.written !== null) {
        this.cached = { version: Number(row.written), doc };
        return grant;
      }
      this.cached = row.current
        ? { version: Number(row.current.version), doc: parseBucket(row.current.document) }
        : { version: 0 };
    }
    throw new UserError(`${ATTEMPTS} processes wrote the budget's row first, one after the other`);
  }

  /**
   * A release removes the holder in the statement itself, whatever the row's version: no compare-and-set to lose
   * (processes that end together would otherwise cost n(n+1)/2 round trips). What the release could report (a 429
   * seen last) is not told; the lease's own end would not tell it either.
   */
  private async release(ask: LeaseAsk): Promise<Grant> {
    this.roundTrips++;
    await this.db.query(
      'releasing the budget',
      `UPDATE ${this.db.t.budgets} SET version = version + 1, document = (document::jsonb #- ARRAY['holders', $2])::json, updated_at = now() WHERE origin = $1`,
      [this.origin, ask.id],
    );
    this.cached = undefined;
    return released;
  }

  /** The compare-and-set: written (the new version), or the row as another process left it. */
  private async write(version: number, doc: BucketDoc): Promise<Row> {
    this.roundTrips++;
    const t = this.db.t.budgets;
    const [row] = await this.db.query<Row>(
      'leasing from the budget',
      `WITH upd AS (
        INSERT INTO ${t} AS b (origin, version, document) VALUES ($1, 1, $3::json)
        ON CONFLICT (origin) DO UPDATE SET version = b.version + 1, document = EXCLUDED.document, updated_at = now()
        WHERE b.version = $2
        RETURNING b.version
      )
      SELECT (SELECT version FROM upd) AS written,
        (SELECT json_build_object('version', version, 'document', document) FROM ${t}
          WHERE origin = $1 AND NOT EXISTS (SELECT 1 FROM upd)) AS current,
        extract(epoch FROM clock_timestamp()) * 1000 AS now`,
      [this.origin, version, JSON.stringify(doc)],
    );
    return row;
  }

  /** The database's time read at about the middle of the round trip. */
  private clockSeen(dbNow: number, sent: number): void {
    this.offset = Number(dbNow) - (sent + Date.now()) / 2;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

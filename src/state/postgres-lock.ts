// The state's lock in PostgreSQL: a session-level advisory lock on a connection of its own, which carries nothing
// else (a confirmation never waits behind a large state write), with TCP keepalive and a deadline on each query. The
// lock is a lease (lease.ts): a write is sent only within the bound of a confirmation, and one that does not answer
// in time is a lost lock. The session asks its server to keep a silent client for 25 s at least (keepalives, TCP
// user timeout, no idle timeout), so the server frees the lock well after this run has stopped writing.
import { UserError } from '../errors.js';
import type { BackendContext } from './backend.js';
import { leaseTimes, LockLease, realClock, type LeaseClock } from './lease.js';
import type { tables } from './postgres-schema.js';
import { lockKey, PgSession } from './postgres-session.js';
import type { PgLocation } from './postgres-url.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** The first keepalive probe after a second of silence: a dead connection between runs is noticed by the kernel. */
const KEEPALIVE_DELAY_MS = 1000;

/**
 * The server's side of the lock's session, each setting where the server's version has it (its failure ignored: the
 * bound then rests on the server's own settings). A silent client is dropped after 10 s + 3 × 5 s of keepalive
 * probes, or 25 s of unacknowledged data; an idle session is never ended for being idle.
 */
const sessionSetup = (statementMs: number) =>
  `SELECT set_config(name, value, false) FROM (VALUES
    ('tcp_keepalives_idle', '10', 0), ('tcp_keepalives_interval', '5', 0), ('tcp_keepalives_count', '3', 0),
    ('tcp_user_timeout', '25000', 120000), ('idle_session_timeout', '0', 140000),
    ('idle_in_transaction_session_timeout', '0', 0), ('statement_timeout', '${statementMs}', 0)
  ) AS s(name, value, since) WHERE current_setting('server_version_num')::int >= since`;

/** The advisory lock's row in pg_locks: $1 and $2 are the key's halves. */
export const HELD_BY = `locktype = 'advisory' AND granted AND objsubid = 1 AND classid = $1::oid AND objid = $2::oid`;

export class PgLock {
  private readonly session: PgSession;
  private lease: LockLease | undefined;
  /** the lock session's server process: the state's writes (on the other connection) are made only while it holds the lock */
  backendPid: number | undefined;
  private readonly key: ReturnType<typeof lockKey>;
  private readonly times;

  constructor(
    loc: PgLocation,
    ctx: BackendContext,
    private readonly name: string,
    private readonly t: ReturnType<typeof tables>,
    private readonly rowKey: [string, string],
    private readonly clock: LeaseClock = realClock,
  ) {
    this.times = leaseTimes(ctx.lockBoundMs);
    this.session = new PgSession(loc, ctx, {
      queryTimeoutMs: Math.max(this.times.deadlineMs, ctx.timeoutMs),
      keepAliveDelayMs: KEEPALIVE_DELAY_MS,
      setup: sessionSetup(this.times.deadlineMs),
    });
    this.key = lockKey(`tapedeck state ${loc.schema} ${ctx.configuration} ${ctx.environment}`);
  }

  get held(): boolean {
    return !!this.lease;
  }

  get halves(): [string, string] {
    return [this.key.high, this.key.low];
  }

  /** Takes the lock, waiting up to `timeoutMs` for another holder; false: it did not come (the caller names the holder). */
  async take(timeoutMs: number, writer: BackendContext['writer']): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // On the lease's own clock: the lease measures every confirmation's age from it.
      const sent = this.clock.now();
      const [row] = await this.session.query<{ ok: boolean; pid: number }>(
        'taking the lock',
        'SELECT pg_try_advisory_lock($1::bigint) AS ok, pg_backend_pid() AS pid',
        [this.key.key],
      );
      if (row.ok) {
        this.backendPid = row.pid;
        this.lease = new LockLease(() => this.ask(), this.name, this.times, sent, this.clock);
        // The connection given up with the lease: queries waiting on a silent one fail now, not at their timeout.
        this.lease.onLost((why) => this.session.cut(why));
        break;
      }
      if (Date.now() >= deadline) return false;
      await sleep(Math.min(200, Math.max(10, deadline - Date.now())));
    }
    await this.session.query(
      'recording the lock holder',
      `INSERT INTO ${this.t.locks} AS l (configuration, environment, host, pid, actor, since, backend_pid)
      VALUES ($1, $2, $3, $4, $5, $6, pg_backend_pid()) ON CONFLICT (configuration, environment)
      DO UPDATE SET host = excluded.host, pid = excluded.pid, actor = excluded.actor, since = excluded.since, backend_pid = excluded.backend_pid`,
      [...this.rowKey, writer.host, writer.pid, writer.actor, new Date().toISOString()],
    );
    return true;
  }

  /** One confirmation: the lock's row in pg_locks is this session's. Its deadline is the lease's. */
  private async ask(): Promise<{ held: true } | { held: false; why: string }> {
    const [{ n }] = await this.session.query<{ n: string }>(
      'checking the lock',
      `SELECT count(*) AS n FROM pg_locks WHERE ${HELD_BY} AND pid = pg_backend_pid()`,
      this.halves,
      this.times.deadlineMs,
    );
    return Number(n) === 1
      ? { held: true }
      : {
          held: false,
          why: `the state ${this.name} is no longer locked by this run: another run may hold the lock now`,
        };
  }

  /** Why the lock is lost, when that is known without asking: the lease ended, or its connection did. */
  lost(): string | undefined {
    if (!this.lease) return undefined;
    const ended = this.session.lost;
    if (ended && !this.lease.lost)
      this.lease.lose(
        `the connection holding the lock on the state ${this.name} ended (${this.session.masked(ended.message)}): another run may hold the lock now`,
      );
    return this.lease.lost;
  }

  /** Returns once a write may be sent (the lease confirmed within its bound); throws E_LOCKED once it may not. */
  async confirm(): Promise<void> {
    if (!this.lease) return;
    const lost = this.lost();
    if (lost) throw new UserError(lost, { code: 'E_LOCKED' });
    await this.lease.confirm();
  }

  /**
   * Runs `work` (a state write) on a confirmed lock, confirming it again every renewal time while the work waits:
   * a write on a silent connection fails as soon as the lock is found lost (the connections are cut then), not at
   * its query timeout.
   */
  async during<T>(work: () => Promise<T>): Promise<T> {
    if (!this.lease) return work();
    await this.confirm();
    const watch = setInterval(() => void this.confirm().catch(() => {}), this.times.renewMs);
    try {
      return await work();
    } finally {
      clearInterval(watch);
    }
  }

  onLost(listener: (why: string) => void): void {
    this.lease?.onLost(listener);
  }

  /** Who holds the lock: the row its holder wrote, if that row is the current holder's (not a dead one's). */
  async holder(): Promise<string> {
    const [held] = await this.session.query<{ pid: number }>(
      'looking up the lock holder',
      `SELECT pid FROM pg_locks WHERE ${HELD_BY} AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      this.halves,
    );
    if (!held) return 'a run that has just finished';
    const [row] = await this.session.query<{
      host: string;
      pid: number;
      actor: string;
      since: Date;
      backend_pid: number;
    }>(
      'looking up the lock holder',
      `SELECT host, pid, actor, since, backend_pid FROM ${this.t.locks} WHERE configuration = $1 AND environment = $2`,
      this.rowKey,
    );
    if (!row || row.backend_pid !== held.pid)
      return `database session ${held.pid}, which has not recorded its host yet`;
    return `host ${row.host}, pid ${row.pid}, actor ${row.actor}, since ${row.since.toISOString()}`;
  }

  /** Releases the lock on a connection still whole (one that broke or was cut took the lock with it), and closes it. */
  async close(): Promise<void> {
    const held = !!this.lease && !this.lost();
    this.lease = undefined; // released, not lost: nobody is told
    await this.session.close(async (client) => {
      if (!held) return;
      await client
        .query(
          `DELETE FROM ${this.t.locks} WHERE configuration = $1 AND environment = $2 AND backend_pid = pg_backend_pid()`,
          this.rowKey,
        )
        .catch(() => {});
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [this.key.key]).catch(() => {});
    });
  }
}

// The replicas of one agent fleet in PostgreSQL: each holds a session-level advisory lock of its own on a
// connection of its own and names it in a row of the replicas table. A replica is live while its lock is held: the
// server drops it with the session, so one that dies (SIGKILL, a lost machine) is gone from the list as soon as the
// server notices, with no heartbeat to tune. The database is the coordinator; there is none to run.
import { randomBytes } from 'node:crypto';
import type { BackendContext } from './backend.js';
import { lockKey, PgSession } from './postgres-session.js';
import type { PgLocation } from './postgres-url.js';

/** A replica's lock held by the session its row names: the replica is live. */
const LIVE = `EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.classid = r.lock_high::oid AND l.objid = r.lock_low::oid AND l.pid = r.backend_pid)`;

export class PgReplicas {
  /** this replica, as the others see it: host, process and a random part (a restarted process is a new replica) */
  readonly id: string;
  private session: PgSession | undefined;
  private readonly key;

  constructor(
    private readonly loc: PgLocation,
    private readonly ctx: BackendContext,
    /** what the replicas of one fleet share: the same repository, branch, paths and environment */
    private readonly fleet: string,
  ) {
    this.id = `${ctx.writer.host}:${ctx.writer.pid}:${randomBytes(3).toString('hex')}`;
    this.key = lockKey(`tapedeck replica ${loc.schema} ${this.id}`);
  }

  /** Joins (again, after its connection was lost): its lock taken and its row written. */
  private async joined(): Promise<PgSession> {
    if (this.session && !this.session.lost) return this.session;
    await this.session?.close();
    const session = new PgSession(this.loc, this.ctx, { keepAliveDelayMs: 1000 });
    this.session = session;
    await session.ready(true);
    await session.query('joining the replicas', 'SELECT pg_advisory_lock($1::bigint)', [this.key.key]);
    await session.query(
      'joining the replicas',
      `INSERT INTO ${session.t.replicas} (id, fleet, host, pid, backend_pid, lock_high, lock_low)
       VALUES ($1, $2, $3, $4, pg_backend_pid(), $5, $6)
       ON CONFLICT (id) DO UPDATE SET backend_pid = excluded.backend_pid`,
      [this.id, this.fleet, this.ctx.writer.host, this.ctx.writer.pid, this.key.high, this.key.low],
    );
    return session;
  }

  /** The live replicas of the fleet, this one among them, sorted; the rows of dead ones are removed. */
  async live(): Promise<string[]> {
    const session = await this.joined();
    const t = session.t.replicas;
    await session.query('listing the replicas', `DELETE FROM ${t} r WHERE fleet = $1 AND NOT ${LIVE}`, [this.fleet]);
    const rows = await session.query<{ id: string }>(
      'listing the replicas',
      `SELECT id FROM ${t} r WHERE fleet = $1 AND ${LIVE} ORDER BY id`,
      [this.fleet],
    );
    return rows.map((r) => r.id);
  }

  /** Leaves: its row removed and its lock released (the session's end would release it too). */
  async leave(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    await session?.close(async (client) => {
      await client.query(`DELETE FROM ${session.t.replicas} WHERE id = $1`, [this.id]).catch(() => {});
    });
  }
}

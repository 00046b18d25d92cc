// The state in PostgreSQL: one row per environment, a history of every version, and a lock every runner sees.
// One connection serves the whole run: it holds the advisory lock (the server drops it when the connection goes, so
// a killed apply never leaves a stale lock), and every write on it is a compare-and-set on the row's version and
// serial. Loaded only for a database URL; `pg` itself only when the first connection is made.
import { setTimeout as sleep } from 'node:timers/promises';
import { UserError } from '../errors.js';
import type { BackendContext, HistoryEntry, StateBackend, StateRefs, WriteInfo } from './backend.js';
import { tables } from './postgres-schema.js';
import { lockKey, PgSession } from './postgres-session.js';
import type { PgLocation } from './postgres-url.js';
import { stateDocument } from './document.js';
import type { StateData } from './data.js';
import type { Allowance, WindowOverride } from '../types.js';

export class PostgresBackend implements StateBackend {
  readonly name: string;
  readonly label: string;
  private readonly db: PgSession;
  private locked = false;
  /** the configuration of the row read: this one's, or '' (a row from before rows had one, adopted by the next write) */
  private rowConfiguration: string;
  /** the serial stored as last read or written: a write checks it too */
  private storedSerial = 0;
  private readonly t: ReturnType<typeof tables>;
  private readonly stateLock: ReturnType<typeof lockKey>;

  constructor(
    private readonly loc: PgLocation,
    private readonly ctx: BackendContext,
  ) {
    this.name = `${loc.shown} (environment ${ctx.environment})`;
    this.label = `the state ${this.name}`;
    this.db = new PgSession(loc, ctx);
    this.t = this.db.t;
    this.rowConfiguration = ctx.configuration;
    this.stateLock = lockKey(`tapedeck state ${loc.schema} ${ctx.configuration} ${ctx.environment}`);
  }

  /** What this run's rows are keyed by: the configuration and the environment. */
  private key(): [string, string] {
    return [this.ctx.configuration, this.ctx.environment];
  }

  async lock(timeoutMs: number): Promise<void> {
    if (this.locked) return;
    await this.db.ready(true);
    const deadline = Date.now() + timeoutMs;
    const { key } = this.stateLock;
    while (
      !(
        await this.db.query<{ ok: boolean }>('taking the lock', 'SELECT pg_try_advisory_lock($1::bigint) AS ok', [key])
      )[0].ok
    ) {
      if (Date.now() >= deadline) {
        throw new UserError(
          `the state ${this.name} is locked by another apply (${await this.holder()}); wait for it, or pass --lock-timeout SECONDS (the database releases the lock of a run that died)`,
          { code: 'E_LOCKED' },
        );
      }
      await sleep(Math.min(200, Math.max(10, deadline - Date.now())));
    }
    this.locked = true;
    const w = this.ctx.writer;
    await this.db.query(
      'recording the lock holder',
      `INSERT INTO ${this.t.locks} AS l (configuration, environment, host, pid, actor, since, backend_pid)
      VALUES ($1, $2, $3, $4, $5, $6, pg_backend_pid()) ON CONFLICT (configuration, environment)
      DO UPDATE SET host = excluded.host, pid = excluded.pid, actor = excluded.actor, since = excluded.since, backend_pid = excluded.backend_pid`,
      [...this.key(), w.host, w.pid, w.actor, new Date().toISOString()],
    );
  }

  lockLost(): string | undefined {
    const lost = this.db.lost;
    if (!this.locked || !lost) return undefined;
    return `the connection holding the lock on the state ${this.name} ended (${this.db.masked(lost.message)}): another run may hold the lock now`;
  }

  /** The advisory lock is still this session's: asked of the server, before the first write and each wave of them. */
  async checkLock(): Promise<void> {
    if (!this.locked) return;
    const lost = this.lockLost();
    if (lost) throw new UserError(lost, { code: 'E_LOCKED' });
    const { high, low } = this.stateLock;
    const held = await this.db
      .query<{ n: string }>(
        'checking the lock',
        `SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
      AND classid = $1::oid AND objid = $2::oid AND pid = pg_backend_pid()`,
        [high, low],
      )
      .catch((e: UserError) => {
        throw new UserError(this.lockLost() ?? `${e.message}: the lock on the state cannot be confirmed`, {
          code: 'E_LOCKED',
        });
      });
    if (Number(held[0].n) !== 1)
      throw new UserError(`the state ${this.name} is no longer locked by this run: another run may hold the lock now`, {
        code: 'E_LOCKED',
      });
  }

  /** Who holds the lock: the row its holder wrote, if that row is the current holder's (not a dead one's). */
  private async holder(): Promise<string> {
    const { high, low } = this.stateLock;
    const [held] = await this.db.query<{ pid: number }>(
      'looking up the lock holder',
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
      AND classid = $1::oid AND objid = $2::oid AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [high, low],
    );
    if (!held) return 'a run that has just finished';
    const [row] = await this.db.query<{ host: string; pid: number; actor: string; since: Date; backend_pid: number }>(
      'looking up the lock holder',
      `SELECT host, pid, actor, since, backend_pid FROM ${this.t.locks} WHERE configuration = $1 AND environment = $2`,
      this.key(),
    );
    if (!row || row.backend_pid !== held.pid)
      return `database session ${held.pid}, which has not recorded its host yet`;
    return `host ${row.host}, pid ${row.pid}, actor ${row.actor}, since ${row.since.toISOString()}`;
  }

  async read(): Promise<{ text?: string; version: number }> {
    if (!(await this.db.ready(false))) return { version: 0 };
    // This configuration's row, else one from before rows had a configuration (its document says whose it is).
    const [row] = await this.db.query<{ text: string; version: string; serial: string; configuration: string }>(
      'reading the state',
      `SELECT document::text AS text, version, serial, configuration FROM ${this.db.rows('states')} WHERE configuration IN ($1, '') AND environment = $2
       ORDER BY configuration DESC LIMIT 1`,
      this.key(),
    );
    if (!row) return { version: 0 };
    this.storedSerial = Number(row.serial);
    this.rowConfiguration = row.configuration;
    return { text: row.text, version: Number(row.version) };
  }

  /**
   * One statement, so one transaction: the row is written only if it still has the version and serial this run
   * read or last wrote, and the history's row for this serial is written with it (made, or brought up to date).
   */
  async write(data: StateData, refs: StateRefs, version: number, info: WriteInfo): Promise<number> {
    await this.db.ready(true);
    const w = this.ctx.writer;
    // An update also adopts a row from before rows had a configuration: it is this configuration's from now on.
    const set =
      version === 0
        ? `INSERT INTO ${this.t.states} (configuration, environment, lineage, serial, version, document) VALUES ($1, $2, $3, $4, 1, $5::json)
         ON CONFLICT (configuration, environment) DO NOTHING RETURNING version`
        : `UPDATE ${this.t.states} SET configuration = $1, lineage = $3, serial = $4, version = version + 1, document = $5::json, updated_at = now()
         WHERE configuration = $14 AND environment = $2 AND version = $12 AND serial = $13 RETURNING version`;
    // Overrides of change windows are approvals too: kept in the same column, told apart by their `window` key.
    const approvals = [...(info.allowances ?? []), ...(info.overrides ?? [])];
    const allowances = approvals.length ? JSON.stringify(approvals) : null;
    const params = [
      ...this.key(),
      refs.lineage,
      refs.serial,
      JSON.stringify(stateDocument(data)),
      w.actor,
      w.host,
      w.tapedeckVersion,
      info.configurationHash ?? null,
      info.command,
      allowances,
    ];
    const rows = await this.db.query<{ version: string }>(
      'writing the state',
      `WITH s AS (${set})
      INSERT INTO ${this.t.history} AS h (configuration, environment, lineage, serial, document, actor, host, tapedeck_version, configuration_hash, command, allowances)
      SELECT $1, $2, $3, $4, $5::json, $6, $7, $8, $9, $10, $11::json FROM s
      ON CONFLICT (configuration, environment, lineage, serial) DO UPDATE SET document = excluded.document, written_at = now(), writes = h.writes + 1,
        actor = excluded.actor, host = excluded.host, tapedeck_version = excluded.tapedeck_version, configuration_hash = excluded.configuration_hash, command = excluded.command,
        allowances = excluded.allowances
      RETURNING (SELECT version FROM s) AS version`,
      version === 0 ? params : [...params, version, this.storedSerial, this.rowConfiguration],
    );
    if (!rows.length) throw await this.conflict();
    this.storedSerial = refs.serial;
    if (this.rowConfiguration !== this.ctx.configuration) {
      await this.db.query(
        'adopting the history',
        `UPDATE ${this.t.history} SET configuration = $1 WHERE configuration = '' AND environment = $2 AND lineage = $3`,
        [...this.key(), refs.lineage],
      );
      this.rowConfiguration = this.ctx.configuration;
    }
    return Number(rows[0].version);
  }

  private async conflict(): Promise<UserError> {
    const [now] = await this.db.query<{ serial: string; updated_at: Date }>(
      'reading the state',
      `SELECT serial, updated_at FROM ${this.t.states}
      WHERE configuration = $1 AND environment = $2`,
      [this.rowConfiguration, this.ctx.environment],
    );
    const at = now ? `it is at serial ${now.serial}, written ${now.updated_at.toISOString()}` : 'it was removed';
    return new UserError(
      `${this.label} was written by another run since this one read it (${at}); nothing was written: run again`,
      { code: 'E_STATE_CONFLICT' },
    );
  }

  async history(limit: number): Promise<HistoryEntry[]> {
    if (!(await this.db.ready(false))) return [];
    const rows = await this.db.query<Record<string, unknown>>(
      'reading the history',
      `SELECT serial, lineage, written_at, actor, host, tapedeck_version, configuration_hash, command, writes, allowances
      FROM ${this.db.rows('history')} WHERE configuration IN ($1, '') AND environment = $2 ORDER BY serial DESC, id DESC LIMIT $3`,
      [...this.key(), limit],
    );
    return rows.map((r) => {
      const approvals = (r.allowances as Array<Record<string, string>> | null) ?? [];
      const allowances = approvals.filter((a) => 'rule' in a) as unknown as Allowance[];
      const overrides = approvals.filter((a) => 'window' in a) as unknown as WindowOverride[];
      return {
        ...r,
        serial: Number(r.serial),
        written_at: (r.written_at as Date).toISOString(),
        allowances: allowances.length ? allowances : null,
        overrides: overrides.length ? overrides : null,
      } as HistoryEntry;
    });
  }

  async version(serial: number): Promise<string | undefined> {
    if (!(await this.db.ready(false))) return undefined;
    const [row] = await this.db.query<{ text: string }>(
      'reading the history',
      `SELECT document::text AS text FROM ${this.db.rows('history')}
      WHERE configuration IN ($1, '') AND environment = $2 AND serial = $3 ORDER BY id DESC LIMIT 1`,
      [...this.key(), serial],
    );
    return row?.text;
  }

  async close(): Promise<void> {
    // Released only on a connection still whole (PgSession.close asks only then): one that broke took the lock
    // with it, and lockLost() keeps saying so, as it did before the split.
    await this.db.close(async (client) => {
      if (!this.locked) return;
      this.locked = false;
      await client
        .query(
          `DELETE FROM ${this.t.locks} WHERE configuration = $1 AND environment = $2 AND backend_pid = pg_backend_pid()`,
          this.key(),
        )
        .catch(() => {});
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [this.stateLock.key]).catch(() => {});
    });
  }
}

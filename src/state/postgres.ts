// The state in PostgreSQL: one row per environment, a history of every version, and a lock every runner sees.
// One connection serves the whole run: it holds the advisory lock (the server drops it when the connection goes, so
// a killed apply never leaves a stale lock), and every write on it is a compare-and-set on the row's version and
// serial. Loaded only for a database URL; `pg` itself only when the first connection is made.
import { UserError } from '../errors.js';
import type { BackendContext, HistoryEntry, StateBackend, StateRefs, WriteInfo } from './backend.js';
import { OWNERS_SINCE, tables } from './postgres-schema.js';
import { PgSession } from './postgres-session.js';
import { HELD_BY, PgLock } from './postgres-lock.js';
import type { PgLocation } from './postgres-url.js';
import { stateDocument } from './document.js';
import { ownedBy, ownersWritten, ownersOf, type Owned } from './postgres-owners.js';
import type { StateData } from './data.js';
import type { Allowance, WindowOverride } from '../types.js';

export class PostgresBackend implements StateBackend {
  readonly name: string;
  readonly label: string;
  private readonly db: PgSession;
  /** the configuration of the row read: this one's, or '' (a row from before rows had one, adopted by the next write) */
  private rowConfiguration: string;
  /** the serial stored as last read or written: a write checks it too */
  private storedSerial = 0;
  private readonly t: ReturnType<typeof tables>;
  private readonly stateLock: PgLock;

  constructor(
    private readonly loc: PgLocation,
    private readonly ctx: BackendContext,
  ) {
    this.name = `${loc.shown} (environment ${ctx.environment})`;
    this.label = `the state ${this.name}`;
    this.db = new PgSession(loc, ctx);
    this.t = this.db.t;
    this.rowConfiguration = ctx.configuration;
    this.stateLock = new PgLock(loc, ctx, this.name, this.t, this.key());
  }

  /** What this run's rows are keyed by: the configuration and the environment. */
  private key(): [string, string] {
    return [this.ctx.configuration, this.ctx.environment];
  }

  async lock(timeoutMs: number): Promise<void> {
    if (this.stateLock.held) return;
    await this.db.ready(true);
    if (!(await this.stateLock.take(timeoutMs, this.ctx.writer)))
      throw new UserError(
        `the state ${this.name} is locked by another apply (${await this.stateLock.holder()}); wait for it, or pass --lock-timeout SECONDS (the database releases the lock of a run that died)`,
        { code: 'E_LOCKED' },
      );
    // Once the lock is lost, the state's own connection goes too: a write waiting on it fails now.
    this.stateLock.onLost((why) => this.db.cut(why));
  }

  lockLost(): string | undefined {
    return this.stateLock.lost();
  }

  /** The lock is still this run's, confirmed within the bound (lease.ts): before every write to the platform. */
  checkLock(): Promise<void> {
    return this.stateLock.confirm();
  }

  onLockLost(listener: (why: string) => void): void {
    this.stateLock.onLost(listener);
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
    const base = version === 0 ? 13 : 16;
    const guard = this.guard(base);
    const set =
      version === 0
        ? `INSERT INTO ${this.t.states} (configuration, environment, lineage, serial, version, document) SELECT $1, $2, $3, $4, 1, $5::json
         WHERE ${guard.sql} ON CONFLICT (configuration, environment) DO NOTHING RETURNING version`
        : `UPDATE ${this.t.states} SET configuration = $1, lineage = $3, serial = $4, version = version + 1, document = $5::json, updated_at = now()
         WHERE configuration = $15 AND environment = $2 AND version = $13 AND serial = $14 AND ${guard.sql} RETURNING version`;
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
      JSON.stringify(ownedBy(data)),
    ];
    const rows = await this.stateLock.during(() =>
      this.db.query<{ version: string }>(
        'writing the state',
        `WITH s AS (${set}), ${ownersWritten(this.t.owners)}
      INSERT INTO ${this.t.history} AS h (configuration, environment, lineage, serial, document, actor, host, tapedeck_version, configuration_hash, command, allowances)
      SELECT $1, $2, $3, $4, $5::json, $6, $7, $8, $9, $10, $11::json FROM s
      ON CONFLICT (configuration, environment, lineage, serial) DO UPDATE SET document = excluded.document, written_at = now(), writes = h.writes + 1,
        actor = excluded.actor, host = excluded.host, tapedeck_version = excluded.tapedeck_version, configuration_hash = excluded.configuration_hash, command = excluded.command,
        allowances = excluded.allowances
      RETURNING (SELECT version FROM s) AS version`,
        [...params, ...(version === 0 ? [] : [version, this.storedSerial, this.rowConfiguration]), ...guard.params],
      ),
    );
    if (!rows.length) throw await this.refused();
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

  /**
   * A write of a locked run is made only while its lock session holds the lock, in the same statement: a run that
   * lost the lock without knowing it yet (a silent connection) never writes over the next holder's state.
   * `first`: the number of the first of its parameters.
   */
  private guard(first: number): { sql: string; params: unknown[] } {
    const pid = this.stateLock.backendPid;
    if (!this.stateLock.held || pid === undefined) return { sql: 'TRUE', params: [] };
    const held = HELD_BY.replace('$1', `$${first}`).replace('$2', `$${first + 1}`);
    return {
      sql: `EXISTS (SELECT 1 FROM pg_locks WHERE ${held} AND pid = $${first + 2})`,
      params: [...this.stateLock.halves, pid],
    };
  }

  /** Why a write changed no row: the lock is not this run's any more, or another run wrote the state meanwhile. */
  private async refused(): Promise<UserError> {
    const pid = this.stateLock.backendPid;
    if (this.stateLock.held && pid !== undefined) {
      const held = await this.db.query('checking the lock', `SELECT 1 FROM pg_locks WHERE ${HELD_BY} AND pid = $3`, [
        ...this.stateLock.halves,
        pid,
      ]);
      if (!held.length)
        return new UserError(
          `the state ${this.name} is no longer locked by this run: nothing was written (another run may hold the lock now)`,
          { code: 'E_LOCKED' },
        );
    }
    return this.conflict();
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

  /** Who else (another configuration or environment of this schema) manages each of these ids. */
  async ownersElsewhere(ids: Array<{ kind: string; id: string }>): Promise<Owned[]> {
    if (!ids.length || (await this.db.ready(false)) < OWNERS_SINCE) return [];
    return ownersOf(this.db, this.t.owners, this.key(), ids);
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

  async rest(): Promise<void> {
    await this.db.close();
  }

  async close(): Promise<void> {
    await Promise.all([this.stateLock.close(), this.db.close()]);
  }
}

// The state in PostgreSQL: one row per environment, a history of every version, and a lock every runner sees.
// One connection serves the whole run: it holds the advisory lock (the server drops it when the connection goes, so
// a killed apply never leaves a stale lock), and every write on it is a compare-and-set on the row's version and
// serial. Loaded only for a database URL; `pg` itself only when the first connection is made.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client as PgClient } from 'pg';
import { UserError } from '../errors.js';
import { Secrets, serverText } from '../util/redact.js';
import type { BackendContext, HistoryEntry, StateBackend, StateRefs, WriteInfo } from './backend.js';
import { LATEST, MIGRATIONS, tables } from './postgres-schema.js';
import type { PgLocation } from './postgres-url.js';
import { stateDocument } from './document.js';
import type { StateData } from './state.js';

/** A lock key (bigint) from a name, and its halves as pg_locks shows them (classid, objid). */
function lockKey(name: string): { key: string; high: string; low: string } {
  const n = createHash('sha256').update(name).digest().readBigUInt64BE(0);
  return { key: BigInt.asIntN(64, n).toString(), high: (n >> 32n).toString(), low: (n & 0xffffffffn).toString() };
}

/** How long a closing connection may take before its socket is dropped (the server then ends the session too). */
const CLOSE_MS = 2000;
/** SQLSTATEs of a schema or table that does not exist yet: nothing was ever written there. */
const MISSING = new Set(['3F000', '42P01']);

export class PostgresBackend implements StateBackend {
  readonly name: string;
  readonly label: string;
  private client: PgClient | undefined;
  /** the connection broke (the server went away): every later call fails with this */
  private lost: Error | undefined;
  /** the version of tapedeck's tables in the database, once looked at */
  private schemaAt: number | undefined;
  private locked = false;
  /** the configuration of the row read: this one's, or '' (a row from before rows had one, adopted by the next write) */
  private rowConfiguration: string;
  /** the serial stored as last read or written: a write checks it too */
  private storedSerial = 0;
  private readonly t: ReturnType<typeof tables>;
  private readonly secrets = new Secrets();
  private readonly stateLock: ReturnType<typeof lockKey>;

  constructor(private readonly loc: PgLocation, private readonly ctx: BackendContext) {
    this.name = `${loc.shown} (environment ${ctx.environment})`;
    this.label = `the state ${this.name}`;
    this.t = tables(loc.schema);
    this.rowConfiguration = ctx.configuration;
    this.secrets.add(loc.password);
    this.stateLock = lockKey(`tapedeck state ${loc.schema} ${ctx.configuration} ${ctx.environment}`);
  }

  /** A database error as one line: what was being done, the server's message (secrets masked) and its code. */
  private fail(doing: string, e: unknown): UserError {
    if (e instanceof UserError) return e;
    const err = (this.lost ?? e) as { message?: string; code?: string };
    const code = typeof err.code === 'string' ? ` (${err.code})` : '';
    return new UserError(`the state database ${this.loc.shown}: ${doing} failed: ${serverText(String(err.message ?? err), this.secrets)}${code}`, { code: 'E_STATE_BACKEND' });
  }

  private async query<R extends Record<string, unknown>>(doing: string, sql: string, params: unknown[] = []): Promise<R[]> {
    const c = await this.connect();
    try {
      if (this.lost) throw this.lost;
      return (await c.query(sql, params)).rows as R[];
    } catch (e) {
      throw this.fail(doing, e);
    }
  }

  private async connect(): Promise<PgClient> {
    if (this.client) return this.client;
    const { default: pg } = await import('pg');
    const client = new pg.Client({
      connectionString: this.loc.connect,
      application_name: 'tapedeck',
      connectionTimeoutMillis: this.ctx.timeoutMs,
      query_timeout: this.ctx.timeoutMs,
      keepAlive: true,
    });
    // A connection that breaks later is reported by the next call, and a run holding the lock on it stops writing
    // at once (lockLost): its session, and so its lock, is gone. Unheard, the 'error' event would end the process.
    client.on('error', (e) => { this.lost ??= e; });
    client.on('end', () => { this.lost ??= new Error('the connection ended'); });
    try {
      await client.connect();
    } catch (e) {
      throw this.fail('connecting', e);
    }
    this.client = client;
    return client;
  }

  /** What this run's rows are keyed by: the configuration and the environment. */
  private key(): [string, string] {
    return [this.ctx.configuration, this.ctx.environment];
  }

  /** A table to read: tables from before rows had a configuration (read, never upgraded, by a reader) show ''. */
  private rows(table: 'states' | 'history'): string {
    return this.schemaAt! >= 3 ? this.t[table] : `(SELECT '' AS configuration, * FROM ${this.t[table]}) AS r`;
  }

  /** The version of tapedeck's tables; a writer makes or upgrades them, a reader of an empty database does not. */
  private async ready(write: boolean): Promise<number> {
    if (this.schemaAt === undefined) {
      try {
        const c = await this.connect();
        this.schemaAt = Number((await c.query(`SELECT coalesce(max(version), 0) AS v FROM ${this.t.migrations}`)).rows[0].v);
      } catch (e) {
        if (!MISSING.has((e as { code?: string }).code ?? '')) throw this.fail('reading the schema version', e);
        this.schemaAt = 0;
      }
    }
    if (this.schemaAt > LATEST) {
      throw new UserError(`the state database ${this.loc.shown} holds tapedeck's tables at version ${this.schemaAt}; this tapedeck (${this.ctx.writer.tapedeckVersion}) knows versions up to ${LATEST}: upgrade tapedeck`, { code: 'E_STATE_BACKEND' });
    }
    if (write && this.schemaAt < LATEST) await this.migrate();
    return this.schemaAt;
  }

  /** The missing migrations, in one transaction, one migrating runner at a time. */
  private async migrate(): Promise<void> {
    const { schema } = this.loc;
    const run = (sql: string, params: unknown[] = []) => this.query('creating the tables', sql, params);
    await run('BEGIN');
    try {
      await run('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey(`tapedeck migrations ${schema}`).key]);
      // Asked first: CREATE SCHEMA IF NOT EXISTS needs the right to create one even when it exists.
      if (!(await run('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).length) await run(`CREATE SCHEMA "${schema}"`);
      await run(`CREATE TABLE IF NOT EXISTS ${this.t.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), tapedeck_version text NOT NULL)`);
      const [{ v }] = await run(`SELECT coalesce(max(version), 0) AS v FROM ${this.t.migrations}`);
      for (let n = Number(v) + 1; n <= LATEST; n++) {
        for (const sql of MIGRATIONS[n - 1](schema)) await run(sql);
        await run(`INSERT INTO ${this.t.migrations} (version, tapedeck_version) VALUES ($1, $2)`, [n, this.ctx.writer.tapedeckVersion]);
      }
      await run('COMMIT');
      this.schemaAt = LATEST;
    } catch (e) {
      await this.client?.query('ROLLBACK').catch(() => {});
      throw e;
    }
  }

  async lock(timeoutMs: number): Promise<void> {
    if (this.locked) return;
    await this.ready(true);
    const deadline = Date.now() + timeoutMs;
    const { key } = this.stateLock;
    while (!(await this.query<{ ok: boolean }>('taking the lock', 'SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]))[0].ok) {
      if (Date.now() >= deadline) {
        throw new UserError(`the state ${this.name} is locked by another apply (${await this.holder()}); wait for it, or pass --lock-timeout SECONDS (the database releases the lock of a run that died)`, { code: 'E_LOCKED' });
      }
      await sleep(Math.min(200, Math.max(10, deadline - Date.now())));
    }
    this.locked = true;
    const w = this.ctx.writer;
    await this.query('recording the lock holder', `INSERT INTO ${this.t.locks} AS l (configuration, environment, host, pid, actor, since, backend_pid)
      VALUES ($1, $2, $3, $4, $5, $6, pg_backend_pid()) ON CONFLICT (configuration, environment)
      DO UPDATE SET host = excluded.host, pid = excluded.pid, actor = excluded.actor, since = excluded.since, backend_pid = excluded.backend_pid`,
    [...this.key(), w.host, w.pid, w.actor, new Date().toISOString()]);
  }

  lockLost(): string | undefined {
    if (!this.locked || !this.lost) return undefined;
    return `the connection holding the lock on the state ${this.name} ended (${serverText(this.lost.message, this.secrets)}): another run may hold the lock now`;
  }

  /** The advisory lock is still this session's: asked of the server, before the first write and each wave of them. */
  async checkLock(): Promise<void> {
    if (!this.locked) return;
    const lost = this.lockLost();
    if (lost) throw new UserError(lost, { code: 'E_LOCKED' });
    const { high, low } = this.stateLock;
    const held = await this.query<{ n: string }>('checking the lock', `SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
      AND classid = $1::oid AND objid = $2::oid AND pid = pg_backend_pid()`, [high, low]).catch((e: UserError) => {
      throw new UserError(this.lockLost() ?? `${e.message}: the lock on the state cannot be confirmed`, { code: 'E_LOCKED' });
    });
    if (Number(held[0].n) !== 1) throw new UserError(`the state ${this.name} is no longer locked by this run: another run may hold the lock now`, { code: 'E_LOCKED' });
  }

  /** Who holds the lock: the row its holder wrote, if that row is the current holder's (not a dead one's). */
  private async holder(): Promise<string> {
    const { high, low } = this.stateLock;
    const [held] = await this.query<{ pid: number }>('looking up the lock holder', `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
      AND classid = $1::oid AND objid = $2::oid AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, [high, low]);
    if (!held) return 'a run that has just finished';
    const [row] = await this.query<{ host: string; pid: number; actor: string; since: Date; backend_pid: number }>('looking up the lock holder',
      `SELECT host, pid, actor, since, backend_pid FROM ${this.t.locks} WHERE configuration = $1 AND environment = $2`, this.key());
    if (!row || row.backend_pid !== held.pid) return `database session ${held.pid}, which has not recorded its host yet`;
    return `host ${row.host}, pid ${row.pid}, actor ${row.actor}, since ${row.since.toISOString()}`;
  }

  async read(): Promise<{ text?: string; version: number }> {
    if (!(await this.ready(false))) return { version: 0 };
    // This configuration's row, else one from before rows had a configuration (its document says whose it is).
    const [row] = await this.query<{ text: string; version: string; serial: string; configuration: string }>('reading the state',
      `SELECT document::text AS text, version, serial, configuration FROM ${this.rows('states')} WHERE configuration IN ($1, '') AND environment = $2
       ORDER BY configuration DESC LIMIT 1`, this.key());
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
    await this.ready(true);
    const w = this.ctx.writer;
    // An update also adopts a row from before rows had a configuration: it is this configuration's from now on.
    const set = version === 0
      ? `INSERT INTO ${this.t.states} (configuration, environment, lineage, serial, version, document) VALUES ($1, $2, $3, $4, 1, $5::json)
         ON CONFLICT (configuration, environment) DO NOTHING RETURNING version`
      : `UPDATE ${this.t.states} SET configuration = $1, lineage = $3, serial = $4, version = version + 1, document = $5::json, updated_at = now()
         WHERE configuration = $14 AND environment = $2 AND version = $12 AND serial = $13 RETURNING version`;
    const allowances = info.allowances?.length ? JSON.stringify(info.allowances) : null;
    const params = [...this.key(), refs.lineage, refs.serial, JSON.stringify(stateDocument(data)), w.actor, w.host, w.tapedeckVersion, info.configurationHash ?? null, info.command, allowances];
    const rows = await this.query<{ version: string }>('writing the state', `WITH s AS (${set})
      INSERT INTO ${this.t.history} AS h (configuration, environment, lineage, serial, document, actor, host, tapedeck_version, configuration_hash, command, allowances)
      SELECT $1, $2, $3, $4, $5::json, $6, $7, $8, $9, $10, $11::json FROM s
      ON CONFLICT (configuration, environment, lineage, serial) DO UPDATE SET document = excluded.document, written_at = now(), writes = h.writes + 1,
        actor = excluded.actor, host = excluded.host, tapedeck_version = excluded.tapedeck_version, configuration_hash = excluded.configuration_hash, command = excluded.command,
        allowances = excluded.allowances
      RETURNING (SELECT version FROM s) AS version`, version === 0 ? params : [...params, version, this.storedSerial, this.rowConfiguration]);
    if (!rows.length) throw await this.conflict();
    this.storedSerial = refs.serial;
    if (this.rowConfiguration !== this.ctx.configuration) {
      await this.query('adopting the history', `UPDATE ${this.t.history} SET configuration = $1 WHERE configuration = '' AND environment = $2 AND lineage = $3`, [...this.key(), refs.lineage]);
      this.rowConfiguration = this.ctx.configuration;
    }
    return Number(rows[0].version);
  }

  private async conflict(): Promise<UserError> {
    const [now] = await this.query<{ serial: string; updated_at: Date }>('reading the state', `SELECT serial, updated_at FROM ${this.t.states}
      WHERE configuration = $1 AND environment = $2`, [this.rowConfiguration, this.ctx.environment]);
    const at = now ? `it is at serial ${now.serial}, written ${now.updated_at.toISOString()}` : 'it was removed';
    return new UserError(`${this.label} was written by another run since this one read it (${at}); nothing was written: run again`, { code: 'E_STATE_CONFLICT' });
  }

  async history(limit: number): Promise<HistoryEntry[]> {
    if (!(await this.ready(false))) return [];
    const rows = await this.query<Record<string, unknown>>('reading the history', `SELECT serial, lineage, written_at, actor, host, tapedeck_version, configuration_hash, command, writes, allowances
      FROM ${this.rows('history')} WHERE configuration IN ($1, '') AND environment = $2 ORDER BY serial DESC, id DESC LIMIT $3`, [...this.key(), limit]);
    return rows.map((r) => ({ ...r, serial: Number(r.serial), written_at: (r.written_at as Date).toISOString() }) as HistoryEntry);
  }

  async version(serial: number): Promise<string | undefined> {
    if (!(await this.ready(false))) return undefined;
    const [row] = await this.query<{ text: string }>('reading the history', `SELECT document::text AS text FROM ${this.rows('history')}
      WHERE configuration IN ($1, '') AND environment = $2 AND serial = $3 ORDER BY id DESC LIMIT 1`, [...this.key(), serial]);
    return row?.text;
  }

  async close(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    if (this.locked && !this.lost) {
      this.locked = false;
      await client.query(`DELETE FROM ${this.t.locks} WHERE configuration = $1 AND environment = $2 AND backend_pid = pg_backend_pid()`, this.key()).catch(() => {});
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [this.stateLock.key]).catch(() => {});
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => { timer = setTimeout(() => r('late'), CLOSE_MS); });
    if ((await Promise.race([client.end().catch(() => {}), late])) === 'late') {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
    clearTimeout(timer);
  }
}

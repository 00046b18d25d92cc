// The run's one connection to the state database: made on first use (`pg` itself is loaded only then), its breaking
// remembered so every later call fails with it, each error one line with secrets masked, and tapedeck's tables made
// or upgraded by a writer before its first write.
import { createHash } from 'node:crypto';
import type { Client as PgClient } from 'pg';
import { UserError } from '../errors.js';
import { Secrets, serverText } from '../util/redact.js';
import type { BackendContext } from './backend.js';
import { LATEST, MIGRATIONS, tables } from './postgres-schema.js';
import type { PgLocation } from './postgres-url.js';

/** A lock key (bigint) from a name, and its halves as pg_locks shows them (classid, objid). */
export function lockKey(name: string): { key: string; high: string; low: string } {
  const n = createHash('sha256').update(name).digest().readBigUInt64BE(0);
  return { key: BigInt.asIntN(64, n).toString(), high: (n >> 32n).toString(), low: (n & 0xffffffffn).toString() };
}

/** How long a closing connection may take before its socket is dropped (the server then ends the session too). */
const CLOSE_MS = 2000;

/** What sets the lock's connection apart from the one that reads and writes the state. */
export interface SessionTuning {
  /** the deadline of each query on it (pg's query_timeout), instead of the run's --timeout */
  queryTimeoutMs?: number;
  /** the first TCP keepalive probe after this much silence (pg's keepAliveInitialDelayMillis) */
  keepAliveDelayMs?: number;
  /** run once connected, its failure ignored: the server's side of the session (keepalives, idle timeouts) */
  setup?: string;
}
/** SQLSTATEs of a schema or table that does not exist yet: nothing was ever written there. */
const MISSING = new Set(['3F000', '42P01']);

export class PgSession {
  private client: PgClient | undefined;
  /** the connection broke (the server went away): every later call fails with this */
  lost: Error | undefined;
  /** the version of tapedeck's tables in the database, once looked at */
  private schemaAt: number | undefined;
  private readonly secrets = new Secrets();
  /** connections ended by close(): their end is not a loss */
  private readonly closed = new WeakSet<PgClient>();
  readonly t: ReturnType<typeof tables>;

  constructor(
    private readonly loc: PgLocation,
    private readonly ctx: BackendContext,
    private readonly tuning: SessionTuning = {},
  ) {
    this.t = tables(loc.schema);
    this.secrets.add(loc.password);
  }

  /** A server's text, on one line, with the password masked. */
  masked(text: string): string {
    return serverText(text, this.secrets);
  }

  /** A database error as one line: what was being done, the server's message (secrets masked) and its code. */
  private fail(doing: string, e: unknown): UserError {
    if (e instanceof UserError) return e;
    const err = (this.lost ?? e) as { message?: string; code?: string };
    const code = typeof err.code === 'string' ? ` (${err.code})` : '';
    return new UserError(
      `the state database ${this.loc.shown}: ${doing} failed: ${this.masked(String(err.message ?? err))}${code}`,
      { code: 'E_STATE_BACKEND' },
    );
  }

  async query<R extends Record<string, unknown>>(
    doing: string,
    sql: string,
    params: unknown[] = [],
    timeoutMs?: number,
  ): Promise<R[]> {
    const c = await this.connect();
    try {
      if (this.lost) throw this.lost;
      return (await c.query({ text: sql, values: params, ...(timeoutMs ? { query_timeout: timeoutMs } : {}) }))
        .rows as R[];
    } catch (e) {
      throw this.fail(doing, e);
    }
  }

  async connect(): Promise<PgClient> {
    if (this.client) return this.client;
    const { default: pg } = await import('pg');
    const client = new pg.Client({
      connectionString: this.loc.connect,
      application_name: 'tapedeck',
      connectionTimeoutMillis: this.ctx.timeoutMs,
      query_timeout: this.tuning.queryTimeoutMs ?? this.ctx.timeoutMs,
      keepAlive: true,
      ...(this.tuning.keepAliveDelayMs ? { keepAliveInitialDelayMillis: this.tuning.keepAliveDelayMs } : {}),
    });
    // A connection that breaks later is reported by the next call, and a run holding the lock on it stops writing
    // at once (lockLost): its session, and so its lock, is gone. Unheard, the 'error' event would end the process.
    // A connection this session closed itself (close(), between an agent's runs) is not a lost one.
    client.on('error', (e) => {
      if (!this.closed.has(client)) this.lost ??= e;
    });
    client.on('end', () => {
      if (!this.closed.has(client)) this.lost ??= new Error('the connection ended');
    });
    try {
      await client.connect();
    } catch (e) {
      throw this.fail('connecting', e);
    }
    if (this.tuning.setup) await client.query(this.tuning.setup).catch(() => {});
    this.client = client;
    return client;
  }

  /**
   * The connection is given up at once (a lock not confirmed in time): `why` is what every later call fails with,
   * the socket is dropped so the queries waiting on it fail now, and a server that can still hear ends the session.
   */
  cut(why: string): void {
    this.lost ??= new Error(why);
    dropSocket(this.client);
  }

  /** A table to read: tables from before rows had a configuration (read, never upgraded, by a reader) show ''. */
  rows(table: 'states' | 'history'): string {
    return this.schemaAt! >= 3 ? this.t[table] : `(SELECT '' AS configuration, * FROM ${this.t[table]}) AS r`;
  }

  /** The version of tapedeck's tables; a writer makes or upgrades them, a reader of an empty database does not. */
  async ready(write: boolean): Promise<number> {
    if (this.schemaAt === undefined) {
      try {
        const c = await this.connect();
        this.schemaAt = Number(
          (await c.query(`SELECT coalesce(max(version), 0) AS v FROM ${this.t.migrations}`)).rows[0].v,
        );
      } catch (e) {
        if (!MISSING.has((e as { code?: string }).code ?? '')) throw this.fail('reading the schema version', e);
        this.schemaAt = 0;
      }
    }
    if (this.schemaAt > LATEST) {
      throw new UserError(
        `the state database ${this.loc.shown} holds tapedeck's tables at version ${this.schemaAt}; this tapedeck (${this.ctx.writer.tapedeckVersion}) knows versions up to ${LATEST}: upgrade tapedeck`,
        { code: 'E_STATE_BACKEND' },
      );
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
      if (!(await run('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).length)
        await run(`CREATE SCHEMA "${schema}"`);
      await run(
        `CREATE TABLE IF NOT EXISTS ${this.t.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), tapedeck_version text NOT NULL)`,
      );
      const [{ v }] = await run(`SELECT coalesce(max(version), 0) AS v FROM ${this.t.migrations}`);
      for (let n = Number(v) + 1; n <= LATEST; n++) {
        for (const sql of MIGRATIONS[n - 1](schema)) await run(sql);
        await run(`INSERT INTO ${this.t.migrations} (version, tapedeck_version) VALUES ($1, $2)`, [
          n,
          this.ctx.writer.tapedeckVersion,
        ]);
      }
      await run('COMMIT');
      this.schemaAt = LATEST;
    } catch (e) {
      await this.client?.query('ROLLBACK').catch(() => {});
      throw e;
    }
  }

  /** Ends the connection (after `last`, if it is still whole); a server that does not answer in time gets its socket dropped. */
  async close(last?: (client: PgClient) => Promise<void>): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    this.closed.add(client);
    // A connection that broke or was cut has nothing to say goodbye on: its socket is dropped.
    if (this.lost) return dropSocket(client);
    if (last) await last(client);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => {
      timer = setTimeout(() => r('late'), CLOSE_MS);
    });
    if ((await Promise.race([client.end().catch(() => {}), late])) === 'late') dropSocket(client);
    clearTimeout(timer);
  }
}

function dropSocket(client: PgClient | undefined): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } } | undefined)?.connection?.stream?.destroy();
}

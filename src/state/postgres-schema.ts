// The database's tables, made on first use by versioned migrations, each in one transaction. Every statement names
// the schema of the URL (`?schema=`, default tapedeck), so several setups can share one database.

/** Everything tapedeck keeps in its schema, by table. */
export const tables = (s: string) => ({
  migrations: `"${s}".schema_migrations`,
  states: `"${s}".states`,
  history: `"${s}".history`,
  locks: `"${s}".locks`,
});

/** Migration N (1-based) is MIGRATIONS[N-1]; a database at a higher version than this list is refused. */
export const MIGRATIONS: ((s: string) => string[])[] = [
  (s) => {
    const t = tables(s);
    return [
      // One row per environment: its current state document, and `version`, which moves on every write (a run
      // writes its serial several times) and is what each write compares and sets.
      `CREATE TABLE ${t.states} (
        environment text PRIMARY KEY,
        lineage text NOT NULL,
        serial bigint NOT NULL,
        version bigint NOT NULL,
        document json NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      // Every version written (each serial of each environment, as its run last wrote it) and who wrote it.
      `CREATE TABLE ${t.history} (
        id bigserial PRIMARY KEY,
        environment text NOT NULL,
        lineage text NOT NULL,
        serial bigint NOT NULL,
        document json NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now(),
        actor text NOT NULL,
        host text NOT NULL,
        tapedeck_version text NOT NULL,
        configuration_hash text,
        command text NOT NULL,
        writes integer NOT NULL DEFAULT 1,
        UNIQUE (environment, lineage, serial)
      )`,
      `CREATE INDEX ON ${t.history} (environment, serial DESC)`,
      // Who holds an environment's advisory lock (the lock itself is the server's): named to whoever waits.
      `CREATE TABLE ${t.locks} (
        environment text PRIMARY KEY,
        host text NOT NULL,
        pid integer NOT NULL,
        actor text NOT NULL,
        since timestamptz NOT NULL,
        backend_pid integer NOT NULL
      )`,
    ];
  },
  // The guardrail denials an apply let through (--allow RULE=REASON), kept with the version it wrote.
  (s) => [`ALTER TABLE ${tables(s).history} ADD COLUMN allowances json`],
];

export const LATEST = MIGRATIONS.length;

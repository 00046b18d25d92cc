// The database's tables, made on first use by versioned migrations, each in one transaction. Every statement names
// the schema of the URL (`?schema=`, default tapedeck), so several setups can share one database.

/** Everything tapedeck keeps in its schema, by table. */
export const tables = (s: string) => ({
  migrations: `"${s}".schema_migrations`,
  states: `"${s}".states`,
  history: `"${s}".history`,
  locks: `"${s}".locks`,
  owners: `"${s}".owners`,
  replicas: `"${s}".replicas`,
  budgets: `"${s}".budgets`,
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
  // Rows keyed by the configuration too (tapedeck.yaml's name): two directories with one environment name and one
  // database have a row each. Rows from before keep '' until a run of their configuration writes them (adopts them).
  (s) => {
    const t = tables(s);
    return [
      `ALTER TABLE ${t.states} ADD COLUMN configuration text NOT NULL DEFAULT '', DROP CONSTRAINT states_pkey, ADD PRIMARY KEY (configuration, environment)`,
      `ALTER TABLE ${t.history} ADD COLUMN configuration text NOT NULL DEFAULT '', DROP CONSTRAINT history_environment_lineage_serial_key,
        ADD UNIQUE (configuration, environment, lineage, serial)`,
      `ALTER TABLE ${t.locks} ADD COLUMN configuration text NOT NULL DEFAULT '', DROP CONSTRAINT locks_pkey, ADD PRIMARY KEY (configuration, environment)`,
    ];
  },
  // One owner per live resource: which configuration and environment manage each id (a key kind's key), written in
  // the same statement as the state. Filled from the states already there; where two held one id, the first listed
  // keeps it, and the other's next apply is refused, naming it.
  (s) => {
    const t = tables(s);
    return [
      `CREATE TABLE ${t.owners} (
        kind text NOT NULL,
        id text NOT NULL,
        configuration text NOT NULL,
        environment text NOT NULL,
        address text NOT NULL,
        PRIMARY KEY (kind, id)
      )`,
      `CREATE INDEX ON ${t.owners} (configuration, environment)`,
      `INSERT INTO ${t.owners} (kind, id, configuration, environment, address)
        SELECT e.value->>'kind', e.value->>'id', st.configuration, st.environment, e.key
        FROM ${t.states} st, json_each(st.document->'resources') e
        WHERE e.value->>'id' IS NOT NULL AND e.value->>'released_at' IS NULL AND st.document->'moved_to' IS NULL
        ORDER BY st.configuration, st.environment
        ON CONFLICT DO NOTHING`,
    ];
  },
  // The agents that share a repository's configurations (src/agent/fleet.ts): one row per live replica, alive for as
  // long as its session holds the advisory lock whose halves the row names; a row whose lock nobody holds is a dead one.
  (s) => [
    `CREATE TABLE ${tables(s).replicas} (
        id text PRIMARY KEY,
        fleet text NOT NULL,
        host text NOT NULL,
        pid integer NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        backend_pid integer NOT NULL,
        lock_high bigint NOT NULL,
        lock_low bigint NOT NULL
      )`,
    `CREATE INDEX ON ${tables(s).replicas} (fleet)`,
  ],
  // The fleet's API budget (src/budget/): one row per platform origin, its bucket and its leases as one small
  // document, rewritten by compare-and-set on `version` (one round trip per lease, pg-store.ts).
  (s) => [
    `CREATE TABLE ${tables(s).budgets} (
      origin text PRIMARY KEY,
      version bigint NOT NULL,
      document json NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
  ],
];

export const LATEST = MIGRATIONS.length;
/** The migration that made the owners table. */
export const OWNERS_SINCE = 4;
/** The migration that made the budgets table. */
export const BUDGETS_SINCE = 6;

// One owner per live resource in a shared database: the owners table records which configuration and environment
// manage each id (a key kind's key), rewritten with every write of a state (in the same statement, so the two never
// disagree), and asked before an apply or import sends anything. An entry released or forgotten leaves the table:
// the resource is handed over to whoever declares it next.
import type { PgSession } from './postgres-session.js';
import type { Owned, StateData } from './data.js';

export type { Owned } from './data.js';

/** The ids a state manages (not released), as the owners table records them for it. */
export function ownedBy(data: StateData): Array<{ kind: string; id: string; address: string }> {
  if (data.moved_to) return [];
  return Object.entries(data.resources)
    .filter(([, e]) => e.id && !e.released_at)
    .map(([address, e]) => ({ kind: e.kind, id: e.id!, address }));
}

/**
 * The CTEs that bring the owners table in line with the state written by the CTE `s` (only if it wrote): this
 * state's rows that it no longer manages go, the others are added; an id another configuration owns is left to it
 * (the check before sending refused that apply already; a race between two loses here, never overwrites).
 * A row of '' (a state from before rows had a configuration) is this environment's, adopted with its state.
 * $1, $2: the configuration and environment; $12: the ids (ownedBy) as JSON.
 */
export const ownersWritten = (table: string) => `
  o AS (SELECT * FROM json_to_recordset($12::json) AS x(kind text, id text, address text)),
  gone AS (DELETE FROM ${table} w WHERE w.configuration IN ($1, '') AND w.environment = $2 AND EXISTS (SELECT 1 FROM s)
    AND NOT EXISTS (SELECT 1 FROM o WHERE o.kind = w.kind AND o.id = w.id)),
  kept AS (INSERT INTO ${table} AS w (kind, id, configuration, environment, address)
    SELECT kind, id, $1, $2, address FROM o WHERE EXISTS (SELECT 1 FROM s)
    ON CONFLICT (kind, id) DO UPDATE SET address = excluded.address, configuration = excluded.configuration
    WHERE w.configuration IN (excluded.configuration, '') AND w.environment = excluded.environment)`;

/** Who other than `key` (configuration, environment; or its row from before configurations) manages any of `ids`. */
export async function ownersOf(
  db: PgSession,
  table: string,
  key: [string, string],
  ids: Array<{ kind: string; id: string }>,
): Promise<Owned[]> {
  return db.query<Owned & Record<string, unknown>>(
    'reading who manages these resources',
    `SELECT w.kind, w.id, w.configuration, w.environment, w.address
     FROM ${table} w JOIN json_to_recordset($3::json) AS x(kind text, id text) ON x.kind = w.kind AND x.id = w.id
     WHERE NOT (w.configuration IN ($1, '') AND w.environment = $2) ORDER BY w.kind, w.id`,
    [...key, JSON.stringify(ids)],
  );
}
